"""Random small specs for differential testing (explorer against the reference interpreter).

Specs stay small and finite: sequential processes recurse only through prefixes; parallel,
hiding and interrupt appear only at the top. Values can leave their ranges, so model errors
are exercised too. Guards avoid division and computed indices, whose evaluation order the
two engines are not required to share.
"""
from __future__ import annotations

import random

CHANNELS = ("a", "b")


class Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.cells = ["x", "y", "f"]  # x: 0..2, y: 0..3 (volatile), f: Bool, arr[i: 0..1]: 0..2

    def int_expr(self, depth: int = 0) -> str:
        r = self.r
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
        return f"(if {self.bool_expr(depth + 1)} then {self.int_expr(depth + 1)} else {self.int_expr(depth + 1)})"

    def bool_expr(self, depth: int = 0) -> str:
        r = self.r
        choice = r.randrange(5 if depth < 2 else 2)
        if choice == 0:
            return f"{self.int_expr(depth + 1)} {r.choice(['==', '!=', '<', '<=', '>', '>='])} {self.int_expr(depth + 1)}"
        if choice == 1:
            return r.choice(["f", "not f", "true", "x < 2", "y > 0"])
        if choice == 2:
            return f"({self.bool_expr(depth + 1)} {r.choice(['and', 'or', '=>'])} {self.bool_expr(depth + 1)})"
        if choice == 3:
            return f"(forall i: {{0..1}} @ arr[i] {r.choice(['<', '>=', '!='])} {r.randrange(3)})"
        return f"(exists i: {{0..1}} @ arr[i] == {self.int_expr(depth + 1)})"

    def assigns(self) -> str:
        r = self.r
        n = r.randrange(3)
        targets = r.sample(["x", "y", "f", "arr[0]", "arr[1]"], n)
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
        k = r.randrange(8 if depth < 3 else 3)
        call = f"{name}{params}"
        if k == 0:
            return f"{self.event()} {self.assigns()}-> {call}"
        if k == 1:
            return f"{self.bool_expr(1)} & {self.event()} {self.assigns()}-> {call}"
        if k == 2:
            return r.choice(["STOP", "SKIP", f"{self.assigns() or '{x := 0} '}-> {call}"])
        if k == 3:
            return f"({self.seq_proc(name, depth + 1, params)}) [] ({self.seq_proc(name, depth + 1, params)})"
        if k == 4:
            return f"({self.seq_proc(name, depth + 1, params)}) |~| ({self.seq_proc(name, depth + 1, params)})"
        if k == 5:
            return f"(a -> SKIP) ; ({self.seq_proc(name, depth + 1, params)})"
        if k == 6:
            return f"if {self.bool_expr(1)} then ({self.seq_proc(name, depth + 1, params)}) else ({self.seq_proc(name, depth + 1, params)})"
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
        n = r.randrange(1, 4)
        for i in range(n):
            if r.random() < 0.3:
                body = self.seq_proc(f"P{i}", 0, "(1 - k)").replace("P" + str(i) + "(1 - k)", f"P{i}(1 - k)")
                lines.append(f"process P{i}(k: 0..1) = {body}")
            else:
                lines.append(f"process P{i} = {self.seq_proc(f'P{i}', 0, '')}")
        names = [f"P{i}(0)" if f"process P{i}(k" in "\n".join(lines) else f"P{i}" for i in range(n)]
        top = names[0]
        for other in names[1:]:
            op = r.choice(["|||", "[| {| c |} |]", "[| {| a, d |} |]", "[]"])
            top = f"({top}) {op} ({other})"
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
        lines.append("process Spec1 = a -> Spec1 [] b -> Spec1 [] c?z -> Spec1 [] d?u?w -> Spec1 [] crash -> Spec1")
        lines.append("process Spec2 = (a -> Spec2 [] c?z -> Spec2) |~| (b -> Spec2 [] d?u?w -> Spec2 [] crash -> Spec2)")
        lines.append(f"assert {spec} [T= Sys")
        return "\n".join(lines) + "\n"
