"""A deliberately naive reference interpreter of the process language: the test oracle of
the engines."""
