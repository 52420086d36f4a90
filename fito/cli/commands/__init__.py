"""One module per `fito` subcommand: each defines `HELP`, `add_arguments(parser)` and
`run(args) -> int`."""
