"""The `fito` command line: `main` (fito.cli.main) parses the arguments and runs one
subcommand of `fito.cli.commands`; nothing below this package imports it."""
