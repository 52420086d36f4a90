"""Two claims with one id."""
from fito.proof import claim, proved, witness


@claim(id="dup.same", title="first", model="none", method="evaluation")
def first():
    """First."""
    return proved(witness(["=", 1, 1], {}))


@claim(id="dup.same", title="second", model="none", method="evaluation")
def second():
    """Second."""
    return proved(witness(["=", 1, 1], {}))
