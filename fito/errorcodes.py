"""The one registry of diagnostic codes: code -> kebab-case name and a one-line summary.

Codes are stable: extend with new numbers, never reuse one. Phase letters: P syntax,
R names, T types and static checks, S semantics, M model checking, K kernel, C command
line; FITO0xx are the category errors of LANGUAGE.md; FITOL0xx are `fito lint`'s findings in
Python training code (docs/lint.md). docs/diagnostics.md documents each.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    name: str
    summary: str


_TABLE = (
    # command line and input
    ("C001", "bad-usage", "the command line could not be understood"),
    ("C002", "unreadable-input", "a FILE argument is missing, a directory, or cannot be read"),
    ("C003", "not-utf8", "the file is not valid UTF-8 text"),
    ("C004", "binary-input", "the file holds binary bytes (NUL or control characters)"),
    ("C005", "input-too-large", "the file exceeds the size limit (--max-bytes)"),
    ("C006", "empty-input", "the file holds no declarations"),
    # syntax
    ("P001", "unexpected-token", "a token that the grammar does not allow here"),
    ("P002", "unexpected-character", "a character that starts no token"),
    ("P003", "unterminated-comment", "a block comment {- ... -} is never closed"),
    ("P004", "unexpected-end", "the file ends in the middle of a construct"),
    ("P005", "nesting-too-deep", "brackets nest deeper than the parser's limit"),
    ("P006", "integer-too-large", "an integer literal is too large"),
    # names
    ("R001", "undefined-name", "a name that is declared nowhere"),
    ("R002", "duplicate-name", "a name declared twice in one scope"),
    ("R003", "wrong-arity", "a process or array used with the wrong number of arguments"),
    ("R004", "wrong-kind", "a name used as something it is not (a channel as a value, ...)"),
    ("R005", "no-system", "an assertion without a process name, and no `system` declaration"),
    ("R006", "recursive-constant", "a constant whose value depends on itself"),
    # static checks and types
    ("T001", "type-mismatch", "an expression of one type where another is required"),
    ("T002", "field-count", "an event with more or fewer fields than its channel carries"),
    ("T003", "field-type", "an event field whose value is not of the channel's field type"),
    ("T004", "assign-undeclared", "an assignment to something that is not a declared cell"),
    ("T005", "double-write", "two writes to one cell in one assignment block"),
    ("T006", "non-constant-range", "a range bound that is not a constant expression"),
    ("T007", "empty-range", "a range whose upper bound is below its lower bound"),
    ("T008", "constant-out-of-range", "a constant value outside its declared range"),
    ("T009", "constant-error", "a constant expression that cannot be evaluated (division by zero)"),
    ("T010", "unguarded-recursion", "a process that can recurse without doing an event"),
    ("T011", "assign-bound-name", "an assignment to a parameter or bound name"),
    (
        "T012",
        "bad-pipeline-domain",
        "a pipeline names a domain that is neither a cell nor an enum member",
    ),
    # FITO type system (LANGUAGE.md)
    (
        "FITO001",
        "snap-as-conv",
        "a snapshot (Snap) is used where a converged state (Conv) is required",
    ),
    (
        "FITO002",
        "epoch-mismatch",
        "values of different or not provably equal epochs are combined into one state",
    ),
    ("FITO003", "time-of-conv", "a time is asked of a converged state, which has none"),
    (
        "FITO004",
        "product-as-atomic",
        "a product of snapshots of several domains is treated as one atomic snapshot",
    ),
    ("FITO005", "contradictory-requires", "the epoch facts of a pipeline contradict each other"),
    ("FITO006", "snap-without-epoch", "a snapshot without epoch metadata is converged"),
    ("FITO007", "solver-unknown", "Z3 could not decide an epoch fact (unknown or timeout)"),
    ("FITOW01", "unchecked-assumption", "an unchecked convergence assumption"),
    # semantics and model checking
    ("S001", "unsupported", "a construct the model checker does not support"),
    ("S002", "state-space-too-large", "the packed state does not fit the explorer's limits"),
    (
        "S004",
        "too-many-values",
        "nested quantifiers, a replicated operator or an input over too many values",
    ),
    ("M001", "value-out-of-range", "a value outside its declared range (model error)"),
    ("M002", "division-by-zero", "division or modulo by zero (model error)"),
    ("M003", "limit-reached", "a --max-states, --timeout or --max-memory limit was reached first"),
    ("M004", "graph-too-large", "the state graph is larger than the export limit"),
    ("M005", "assertion-fails", "an assertion fails (SARIF result carrying the counterexample)"),
    ("M006", "assertion-unknown", "an assertion has no verdict (a limit, or the spec has errors)"),
    ("M007", "index-out-of-range", "an array index outside the array's index type (model error)"),
    (
        "M008",
        "conflicting-writes",
        "two synchronising processes write one cell differently (model error)",
    ),
    (
        "M401",
        "unbounded-cell",
        "a cell of the unbounded type Int, which the explicit engines cannot enumerate",
    ),
    (
        "M402",
        "not-symbolic",
        "an assertion or a model feature the symbolic engine does not answer or translate",
    ),
    ("P007", "reserved-word", "a reserved word used as a name"),
    # ltl (docs/ltl.md)
    ("M301", "automaton-too-large", "an ltl formula's Büchi automaton is too large to build"),
    (
        "M302",
        "fairness-target-missing",
        "a fairness assumption names a process that the checked process does not run",
    ),
    # proof kernel
    ("K001", "certificate-rejected", "the kernel rejected a certificate"),
    ("K002", "certificate-unreadable", "a certificate could not be read"),
    (
        "K003",
        "claims-file-error",
        "a claims file failed to import, declares a duplicate claim id, or holds no claims",
    ),
    # fleet models (paper B): models/*.toml, `fito simulate`, `fito returnmap`
    ("P101", "bad-model-syntax", "a fleet model's TOML or parameter expression does not parse"),
    (
        "S101",
        "invalid-fleet-model",
        "a fleet model value is missing, of the wrong type or out of range",
    ),
    (
        "S102",
        "empty-branch",
        "the region of a return-map branch is empty for the model's parameters",
    ),
    ("M101", "event-limit", "the simulator reached --max-events before the requested cycles"),
    # runtime checkpoints: `fito inspect`
    (
        "C201",
        "not-a-checkpoint-dir",
        "the directory holds no fito checkpoint (no shards/ or commits/)",
    ),
    (
        "C301",
        "expectation-not-met",
        "a verdict or diagnostic differs from the file's `-- expect:` comment",
    ),
    # the distributed search (MPI): `fito check --distributed`
    (
        "C302",
        "mpi-unavailable",
        "--distributed was asked for but mpi4py (or its MPI library) is not installed",
    ),
    ("C303", "distributed-jobs", "--jobs with --distributed: one process per rank"),
    (
        "C304",
        "checkpoint-refused",
        "--resume: the checkpoint is of another spec, number of ranks or partition, or torn",
    ),
    # FITO type checker: pipeline epoch facts
    (
        "T013",
        "nonlinear-epoch-fact",
        "an epoch expression outside linear integer arithmetic (a product of epochs, a quantifier)",
    ),
    # names (front end)
    ("R007", "recursive-type", "a type whose definition depends on itself"),
    # `fito lint`: checkpoint mistakes in Python training code (docs/lint.md)
    ("FITOL000", "python-syntax-error", "the file is not valid Python"),
    (
        "FITOL001",
        "split-checkpoint",
        "components saved to separate files (or by separate ranks) with no commit marker after all",
    ),
    (
        "FITOL002",
        "latest-per-component",
        "each component resumed from its own latest file, with no check that their steps agree",
    ),
    (
        "FITOL003",
        "save-in-place",
        "torch.save straight onto the final path (no temporary file, fsync and rename)",
    ),
    (
        "FITOL004",
        "rename-without-fsync",
        "a rename publishes a checkpoint without an fsync of the file before or the directory "
        "after",
    ),
    (
        "FITOL005",
        "unawaited-async-save",
        "a background save that the next save, the commit marker or the exit does not wait for",
    ),
    (
        "FITOL006",
        "commit-before-barrier",
        "a rank-0 commit or done marker with no barrier after the other ranks' shards",
    ),
    (
        "FITOL007",
        "mixed-restore",
        "model weights and optimizer state restored from different checkpoints",
    ),
    (
        "FITOL008",
        "partial-restore",
        "the optimizer, the LR scheduler or the step counter not restored with the weights",
    ),
    (
        "FITOL050",
        "save-in-place-versioned",
        "(off by default) a checkpoint written in place under a fresh per-step name, uncommitted",
    ),
    (
        "FITOL051",
        "async-save-live-state",
        "a background save of the live model or optimizer tensors while the loop steps on",
    ),
    (
        "FITOL052",
        "pointer-before-save",
        "a latest pointer or symlink moved before the checkpoint it names is written",
    ),
    (
        "FITOL053",
        "resume-uncommitted",
        "a resume that lists the directory for the newest step while saves commit with a marker",
    ),
    (
        "FITOL054",
        "whole-checkpoint-as-weights",
        "a full checkpoint loaded whole as the model's weights with strict=False",
    ),
    # protocols: local variables, buffered channels, functions, CSPm operators
    ("R008", "recursive-function", "a function that calls itself, directly or through others"),
    ("T014", "buffered-in-event-set", "a buffered channel in a set of events or a renaming"),
    ("T015", "rename-mismatch", "a renaming whose two sides are followed by different fields"),
    (
        "T016",
        "internal-step-in-choice",
        "(warning) a buffered, assert or atomic step under [], which it does not resolve",
    ),
    ("P008", "foreign-syntax", "a Promela or CSPm form that fito writes differently"),
    ("S003", "not-supported-yet", "a form the model checker does not run yet"),
    ("M009", "assertion-violated", "an `assert(b)` step whose condition is false (model error)"),
    # the first hour: traps a newcomer meets
    (
        "T601",
        "growing-choice",
        "(warning) a recursion through [] after internal steps, whose state may never close",
    ),
    # symmetry reduction (docs/reductions.md)
    ("T201", "symmetric-member-named", "a member of a symmetric type singled out by a constant"),
    (
        "T202",
        "symmetric-value-misused",
        "a member of a symmetric type in an order comparison, arithmetic or another value",
    ),
    (
        "T203",
        "symmetric-initial-value",
        "a cell's initial value depends on its index of a symmetric type",
    ),
    (
        "T204",
        "symmetry-not-supported",
        "(warning) a use of a symmetric type the symmetry reduction does not permute yet",
    ),
    (
        "T205",
        "asymmetric-assertion",
        "(warning) an assertion that singles out a member is checked without symmetry",
    ),
)

CODES: dict[str, ErrorCode] = {
    code: ErrorCode(code, name, summary) for code, name, summary in _TABLE
}


def lookup(code: str) -> ErrorCode:
    """The registered code; an unknown code is an internal bug."""
    return CODES[code]
