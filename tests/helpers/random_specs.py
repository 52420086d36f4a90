"""Random small specs for differential testing (explorer against the reference interpreter).

Specs stay small and finite: sequential processes recurse only through prefixes; parallel,
hiding and interrupt appear only at the top. Values can leave their ranges, so model errors
are exercised too. Guards avoid division and computed indices, whose evaluation order the
two engines are not required to share.

`Gen(seed, forms=True)` also writes the forms of issue 13 (buffered channels, process
variables, `var` parameters, assert and atomic steps, the committing choice, functions and
`let`, sets of events, alphabetised parallel, renaming, sliding choice). It is off by
default, so the agreement test draws the same specs as before; the integrator turns it on
once the engine runs those forms. With the flag off, no draw is added or changed.
"""

from __future__ import annotations

import random

CHANNELS = ("a", "b")


class Gen:
    def __init__(self, seed: int, forms: bool = False) -> None:
        self.r = random.Random(seed)
        self.cells = ["x", "y", "f"]  # x: 0..2, y: 0..3 (volatile), f: Bool, arr[i: 0..1]: 0..2
        self.forms = forms
        self.local = False  # inside a process that declares `var l` and `var m[j]`

    def int_expr(self, depth: int = 0) -> str:
        r = self.r
        if self.forms and r.random() < 0.25:
            return self.new_int_expr(depth)
        choice = r.randrange(6 if depth < 2 else 3)
        if choice == 0:
            return str(r.randrange(4))
        if choice == 1:
            return r.choice(["x", "y", "arr[0]", "arr[1]"])
        if choice == 2:
            return r.choice(["x", "y"])
        if choice == 3:
            return f"({self.int_expr(depth + 1)} {r.choice(['+', '-'])} {self.int_expr(depth + 1)})"
        if choice == 4:
            return f"min({self.int_expr(depth + 1)}, {self.int_expr(depth + 1)})"
        return (
            f"(if {self.bool_expr(depth + 1)} then {self.int_expr(depth + 1)}"
            f" else {self.int_expr(depth + 1)})"
        )

    def bool_expr(self, depth: int = 0) -> str:
        r = self.r
        choice = r.randrange(5 if depth < 2 else 2)
        if choice == 0:
            return (
                f"{self.int_expr(depth + 1)} {r.choice(['==', '!=', '<', '<=', '>', '>='])}"
                f" {self.int_expr(depth + 1)}"
            )
        if choice == 1:
            return r.choice(["f", "not f", "true", "x < 2", "y > 0"])
        if choice == 2:
            return (
                f"({self.bool_expr(depth + 1)} {r.choice(['and', 'or', '=>'])}"
                f" {self.bool_expr(depth + 1)})"
            )
        if choice == 3:
            return f"(forall i: {{0..1}} @ arr[i] {r.choice(['<', '>=', '!='])} {r.randrange(3)})"
        return f"(exists i: {{0..1}} @ arr[i] == {self.int_expr(depth + 1)})"

    def assigns(self) -> str:
        r = self.r
        n = r.randrange(3)
        targets = r.sample(self.targets(), n)
        parts = []
        for t in targets:
            value = self.bool_expr(1) if t == "f" else self.int_expr(1)
            parts.append(f"{t} := {value}")
        return "{" + ", ".join(parts) + "} " if parts else ""

    def event(self) -> str:
        r = self.r
        k = r.randrange(5)
        if k == 0:
            return r.choice(CHANNELS)
        if k == 1:
            return f"c.{r.randrange(3)}"
        if k == 2:
            return f"c!{r.choice(['x', 'arr[1]', '(x + 1)', '(y - 1)'])}"
        if k == 3:
            return r.choice(["c?v", "c?v:{0, 2}"])
        return "d.0.1" if r.random() < 0.5 else "d?p.1"

    def seq_proc(self, name: str, depth: int, params: str) -> str:
        """A sequential body: prefixes, guards, choices, recursion through prefixes."""
        r = self.r
        if self.forms and r.random() < 0.35:
            return self.new_step(name, depth, params)
        k = r.randrange(8 if depth < 3 else 3)
        call = f"{name}{params}"
        if k == 0:
            return f"{self.event()} {self.assigns()}-> {call}"
        if k == 1:
            return f"{self.bool_expr(1)} & {self.event()} {self.assigns()}-> {call}"
        if k == 2:
            return r.choice(["STOP", "SKIP", f"{self.assigns() or '{x := 0} '}-> {call}"])
        if k == 3:
            return (
                f"({self.seq_proc(name, depth + 1, params)})"
                f" [] ({self.seq_proc(name, depth + 1, params)})"
            )
        if k == 4:
            return (
                f"({self.seq_proc(name, depth + 1, params)})"
                f" |~| ({self.seq_proc(name, depth + 1, params)})"
            )
        if k == 5:
            return f"(a -> SKIP) ; ({self.seq_proc(name, depth + 1, params)})"
        if k == 6:
            return (
                f"if {self.bool_expr(1)} then ({self.seq_proc(name, depth + 1, params)})"
                f" else ({self.seq_proc(name, depth + 1, params)})"
            )
        return f"[] j: {{0..1}} @ j == {r.randrange(2)} & {self.event()} -> {call}"

    def spec(self) -> str:
        r = self.r
        lines = [
            "channel a, b",
            "type Val = 0..2",
            "type Bit = 0..1",
            "channel c: Val",
            "channel d: Bit.(1..2)",
            f"domain x: 0..2 = {r.randrange(3)} durable",
            "domain y: 0..3 = 0 volatile",
            f"domain f: Bool = {r.choice(['true', 'false'])} volatile",
            "domain arr[i: 0..1]: 0..2 = i durable",
        ]
        if self.forms:
            lines.extend(NEW_DECLARATIONS)
        n = r.randrange(1, 4)
        for i in range(n):
            if self.forms and r.random() < 0.4:
                lines.append(self.process_with_variables(f"P{i}"))
            elif r.random() < 0.3:
                body = self.seq_proc(f"P{i}", 0, "(1 - k)").replace(
                    "P" + str(i) + "(1 - k)", f"P{i}(1 - k)"
                )
                lines.append(f"process P{i}(k: 0..1) = {body}")
            else:
                lines.append(f"process P{i} = {self.seq_proc(f'P{i}', 0, '')}")
        text = "\n".join(lines)
        names = [
            f"P{i}(0)" if f"process P{i}(k" in text or f"process P{i}(var" in text else f"P{i}"
            for i in range(n)
        ]
        top = names[0]
        for other in names[1:]:
            ops = ["|||", "[| {| c |} |]", "[| {| a, d |} |]", "[]"]
            ops += NEW_OPERATORS if self.forms else []
            op = r.choice(ops)
            top = f"({top}) {op} ({other})"
        if self.forms and r.random() < 0.4:
            top = self.wrap(top)
        k = r.randrange(4)
        if k == 0:
            top = f"({top}) /\\ (crash {self.assigns()}-> {names[0]})"
        elif k == 1:
            top = f"({top}) \\ {{| b |}}"
        lines.append(f"process Sys = {top}")
        lines.append("system Sys")
        lines.append("assert Sys :[deadlock free]")
        lines.append(f"assert Sys |= always {self.bool_expr()}")
        lines.append(f"assert Sys reaches {self.bool_expr()}")
        spec = r.choice(["Spec1", "Spec2"])
        lines.append(
            "process Spec1 = a -> Spec1 [] b -> Spec1 [] c?z -> Spec1 [] d?u?w -> Spec1"
            " [] crash -> Spec1"
        )
        lines.append(
            "process Spec2 = (a -> Spec2 [] c?z -> Spec2)"
            " |~| (b -> Spec2 [] d?u?w -> Spec2 [] crash -> Spec2)"
        )
        lines.append(f"assert {spec} [T= Sys")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ issue 13 forms
    def targets(self) -> list[str]:
        base = ["x", "y", "f", "arr[0]", "arr[1]"]
        return base + ["l", "m[0]", "m[1]"] if self.local else base

    def new_int_expr(self, depth: int) -> str:
        r = self.r
        options = [
            "len(q)",
            "inc(x)",
            f"(let w = {self.int_expr(depth + 2)} in w + 1)",
            "(if full(q) then 1 else 0)",
        ]
        if self.local:
            options += ["l", "m[0]", "m[1]"]
        return r.choice(options)

    def new_step(self, name: str, depth: int, params: str) -> str:
        """A step of a new form, then the recursive call."""
        r, call = self.r, f"{name}{params}"
        k = r.randrange(8 if depth < 3 else 5)
        if k == 0:
            return f"q!{r.choice(['x', '1', '(x + 1)'])} {self.assigns()}-> {call}"
        if k == 1:
            return f"q?v {self.assigns()}-> {call}"
        if k == 2:
            return f"assert({self.bool_expr(1)}) -> {call}"
        if k == 3:
            stmts = [
                f"{t} := {self.bool_expr(1) if t == 'f' else self.int_expr(1)}"
                for t in r.sample(self.targets(), r.randrange(1, 3))
            ]
            stmts.append(f"if {self.bool_expr(1)} then {{x := 1}} else {{y := 2}}")
            return f"atomic {{{', '.join(stmts)}}} -> {call}"
        if k == 4:
            return f"{{forall i: {{0..1}} @ arr[i] := {r.randrange(3)}}} -> {call}"
        if k == 5:
            branches = " :: ".join(self.seq_proc(name, depth + 1, params) for _ in range(2))
            other = f" :: else -> {self.event()} -> {call}" if r.random() < 0.5 else ""
            return f"if :: {branches}{other} fi"
        if k == 6:
            return f"({self.seq_proc(name, depth + 1, params)}) [> ({self.event()} -> {call})"
        return f"{self.event()} -> ({self.seq_proc(name, depth + 1, params)})"

    def process_with_variables(self, name: str) -> str:
        """A process with local variables and a `var` parameter, looping on itself."""
        self.local = True
        try:
            body = self.seq_proc(name, 0, "(n)")
        finally:
            self.local = False
        return (
            f"process {name}(var n: 0..2)\n  var l: 0..2 = n\n"
            f"  var m[j: 0..1]: 0..2 = j durable\n  = {body}"
        )

    def wrap(self, top: str) -> str:
        r = self.r
        return r.choice(
            [
                f"({top}) [[a <- b, c.0 <- c.1]]",
                f"({top}) \\ {{c.0, a}}",
                f"({top}) \\ {{| d.0 |}}",
                f"({top}) [{{| a, b, c |}} || Events] (b -> SKIP)",
                f"(|| i: {{0..1}} @ [{{| d.i |}}] ({top}))",
            ]
        )


NEW_DECLARATIONS = ["channel q: Val buffer 2", "fun inc(v: Val): Val = min(v + 1, 2)"]
NEW_OPERATORS = ["[{| a, c |} || {| b, c |}]", "[{c.0, a} || {c.0, b}]", "[>"]
