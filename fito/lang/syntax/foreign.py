"""Forms of Promela and CSPm that fito writes differently (or does not have): P008.

At a syntax error, the tokens around the failure are matched against the forms a SPIN or
FDR user would write; a match turns the error into P008, whose message names the form and
whose hint says what to write instead. Names from those languages that are undefined in
fito (`skip`, `byte`, `nempty`, ...) get the same kind of hint with R001
(`FOREIGN_NAMES`, used by `Resolver.suggest`). docs/language.md has the two tables.
"""

from __future__ import annotations

from collections.abc import Callable

from fito.lang.syntax.lexer import Tok

Found = tuple[str, str]  # (message, hint)

#: Declaration words of Promela and CSPm -> (what it is, what fito writes)
_DECLARATIONS: dict[str, Found] = {
    "proctype": ("Promela's `proctype`", "write a process: process P(i: T) = ..."),
    "active": (
        "Promela's `active proctype`",
        "write the process and start it from the system: system P ||| Q",
    ),
    "init": ("Promela's `init` process", "write `system P ||| Q` (the processes to run)"),
    "mtype": ("Promela's `mtype`", "write an enumeration: type Msg = {ack, data}"),
    "chan": (
        "Promela's `chan q = [N] of {T}`",
        "write channel q: T buffer N (N = 0: a rendezvous channel: channel q: T)",
    ),
    "typedef": ("Promela's `typedef`", "write a channel of several fields: channel c: A.B"),
    "inline": ("Promela's `inline`", "write a function (fun f(x: T): U = e) or a process"),
    "ltl": ("Promela's `ltl name { ... }`", "write assert P |= ltl [] (x < 3) (docs/ltl.md)"),
    "never": ("a `never` claim", "write assert P |= always e, or a process and [T="),
    "bit": (
        "a Promela variable declaration",
        "write domain x: Bool = false volatile, or var x: Bool = false on a process",
    ),
    "bool": (
        "a Promela variable declaration",
        "write domain x: Bool = false volatile, or var x: Bool = false on a process",
    ),
    "byte": (
        "a Promela variable declaration",
        "write domain x: 0..255 = 0 volatile, or var x: 0..255 = 0 on a process",
    ),
    "short": (
        "a Promela variable declaration",
        "write domain x: lo..hi = 0 volatile, or var x: lo..hi = 0 on a process",
    ),
    "int": (
        "a Promela variable declaration",
        "write domain x: lo..hi = 0 volatile, or "
        "var x: lo..hi = 0 on a process (fito needs a finite range)",
    ),
    "unsigned": ("a Promela variable declaration", "write domain x: 0..N = 0 volatile"),
    "datatype": ("CSPm's `datatype T = A | B`", "write an enumeration: type T = {A, B}"),
    "nametype": ("CSPm's `nametype T = {0..3}`", "write type T = 0..3"),
    "subtype": ("CSPm's `subtype`", "write a subset of an enumeration: type S = {a, b}"),
    "include": ("an `include`", "fito reads one file: copy the declarations in"),
    "transparent": ("CSPm's `transparent` functions", "fito compresses nothing: leave it out"),
}

#: Names fito does not define that other languages do -> the hint of R001.
FOREIGN_NAMES: dict[str, str] = {
    "skip": "SKIP (upper case) terminates; Promela's `skip`, a step that does nothing, is {} -> P",
    "Skip": "write SKIP",
    "Stop": "write STOP",
    "stop": "write STOP",
    "bool": "the type is Bool",
    "int": "write a finite range such as 0..10",
    "byte": "a byte is the range 0..255",
    "bit": "write Bool or 0..1",
    "printf": "fito has no output statements: the counterexample lists every step",
    "nempty": "write not empty(q)",
    "nfull": "write not full(q)",
    "timeout": "Promela's timeout has no fito form: write P [> Q for a step that may be "
    "overtaken, or an `else` branch of if :: ... fi",
    "run": "start processes by composing them: system P ||| Q",
    "union": "list every item in one set: {| a, b |} or {a.0, b}",
    "Union": "list every item in one set: {| a, b |} or {a.0, b}",
    "diff": "fito's sets of events are listed: {| a, b |} or {a.0, b}",
    "inter": "fito's sets of events are listed: {| a, b |} or {a.0, b}",
    "d_step": "write atomic { ... } -> P",
    "break": "leave a loop by calling the process that follows it: -> Next",
    "CHAOS": "write a process that may do anything: P = [] e: T @ c.e -> P",
    "RUN": "write a process that offers every event: P = [] e: T @ c.e -> P",
}


def _text(tokens: list[Tok], i: int) -> str:
    return tokens[i][1] if 0 <= i < len(tokens) else ""


def _type(tokens: list[Tok], i: int) -> str:
    return tokens[i][0] if 0 <= i < len(tokens) else ""


def _adjacent(tokens: list[Tok], i: int) -> bool:
    """Token i starts right where token i - 1 ends."""
    return i > 0 and tokens[i - 1][2] + len(tokens[i - 1][1]) == tokens[i][2]


Rule = Callable[[list[Tok], int, bool], "Found | None"]


def _declaration_word(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    word = _text(tokens, i)
    if at_decl and _type(tokens, i) == "NAME" and word in _DECLARATIONS:
        what, hint = _DECLARATIONS[word]
        return f"{what} is not fito syntax", hint
    return None


def _bare_definition(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    if at_decl and _type(tokens, i) == "NAME" and _type(tokens, i + 1) in ("EQUALS", "LPAR"):
        name = _text(tokens, i)
        return (
            f"a definition `{name} = ...` without a keyword (CSPm style)",
            f"write process {name} = ... (or const {name} = ... for a value)",
        )
    return None


def _do_loop(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    if _type(tokens, i) == "COLONCOLON" and _text(tokens, i - 1) == "do":
        return (
            "Promela's `do :: ... od` loop has no fito form",
            "write a recursive process: process Loop = if :: g & a -> Loop :: else -> Next fi",
        )
    return None


def _double_operators(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    t, before = _type(tokens, i), _type(tokens, i - 1)
    if t == "AMP" and before == "AMP" and _adjacent(tokens, i):
        return "`&&` is not fito syntax", "write `and` (and `b & P` for a guard)"
    if t == "PLUS" and (
        before == "PLUS"
        and _adjacent(tokens, i)
        or _type(tokens, i + 1) == "PLUS"
        and _adjacent(tokens, i + 1)
    ):
        return "`x++` is not fito syntax", "write an assignment: {x := x + 1} -> P"
    if t == "PARPAR":
        return (
            "`||` stands only in alphabetised parallel, P [A || B] Q",
            "write `or` between conditions",
        )
    if t == "BANG" and before == "BANG" and _adjacent(tokens, i):
        return (
            "Promela's sorted send `q!!v` has no fito form",
            "a buffered send is q!v (messages are kept in order)",
        )
    if t == "QMARK" and before == "QMARK" and _adjacent(tokens, i):
        return (
            "Promela's random receive `q??v` has no fito form",
            "receive the oldest message with q?x, or match it: q.v?x",
        )
    if t == "LSQB" and before == "QMARK":
        return (
            "Promela's poll `q?[x]` has no fito form",
            "test the buffer in a guard: not empty(q) & ..., len(q) > 0 & ...",
        )
    if t == "BANG":
        return "`!b` is not fito syntax", "write not b"
    if t == "NAME" and _text(tokens, i - 1) == "goto":
        return "Promela's `goto` has no fito form", "call the process that follows: -> Next"
    return None


def _linked_parallel(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    """CSPm's `P [a <-> b] Q`, read by the lexer as `<-` then `>`."""
    if _type(tokens, i) == "LARROW" and _text(tokens, i + 1) == ">" and _adjacent(tokens, i + 1):
        return (
            "CSPm's linked parallel `P [a <-> b] Q` has no fito form",
            "rename both sides to one channel and synchronise on it, hidden: "
            "(P [[a <- m]] [| {| m |} |] Q [[b <- m]]) \\ {| m |}",
        )
    return None


def _refinement(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    if (
        _type(tokens, i) == "EQUALS"
        and _type(tokens, i - 2) == "LSQB"
        and _text(tokens, i - 1) in ("F", "FD", "R", "V", "RD", "M")
    ):
        return (
            f"`[{_text(tokens, i - 1)}=` refinement is not checked by fito",
            "fito checks trace refinement: assert Spec [T= Impl",
        )
    return None


def _property(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    if (
        _type(tokens, i) == "LSQB"
        and _text(tokens, i - 1) == "free"
        and _text(tokens, i - 2) == "deadlock"
    ):
        return (
            "a semantic model after `deadlock free` is CSPm syntax",
            "write assert P :[deadlock free]",
        )
    if _type(tokens, i - 1) == "DEADLOCK_OPEN" and _text(tokens, i) in (
        "divergence",
        "deterministic",
        "livelock",
        "has",
    ):
        return (
            f"`:[{_text(tokens, i)} ...]` is not checked by fito",
            "fito checks :[deadlock free], always, reaches, eventually and [T=",
        )
    return None


def _statement_end(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    if _type(tokens, i - 1) == "SEMI" and (at_decl or _type(tokens, i) == "$END"):
        return (
            "a `;` ends this declaration (Promela style)",
            "leave it out: in fito `;` is sequential composition, P ; Q",
        )
    return None


def _in_block(tokens: list[Tok], i: int) -> bool:
    """Token i stands inside `{ }` (a block of assignments), not a set of events."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = _type(tokens, j)
        if t in ("RBRACE", "RPAR", "RSQB"):
            depth += 1
        elif t in ("LBRACE", "LPAR", "LSQB"):
            if depth == 0:
                return t == "LBRACE"
            depth -= 1
    return False


def _promela_statement(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    """`x = e` and `s1; s2` inside `{ }` or `atomic { }`: Promela's assignment and
    statement separator."""
    if not _in_block(tokens, i):
        return None
    if _type(tokens, i) == "EQUALS" and _type(tokens, i - 1) in ("NAME", "RSQB"):
        return (
            "`x = e` (Promela's assignment) is not fito syntax",
            "write x := e inside { } or atomic { }",
        )
    if _type(tokens, i) == "ASSIGN" and _type(tokens, i - 2) == "SEMI":
        return (
            "`;` between statements (Promela style) is not fito syntax",
            "separate the statements of { } or atomic { } with commas: atomic { x := 1, y := x }",
        )
    return None


_RULES: tuple[Rule, ...] = (
    _declaration_word,
    _do_loop,
    _double_operators,
    _refinement,
    _property,
    _statement_end,
    _promela_statement,
    _linked_parallel,
    _bare_definition,
)


def foreign_form(tokens: list[Tok], i: int, at_decl: bool) -> Found | None:
    """(message, hint) when the failure at tokens[i] is a known Promela or CSPm form;
    `at_decl`: the parser expected a new declaration there."""
    for rule in _RULES:
        found = rule(tokens, i, at_decl)
        if found is not None:
            return found
    return None
