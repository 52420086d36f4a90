"""FITO004: a product of snapshots of several domains treated as one atomic snapshot."""

from __future__ import annotations

import pytest

from fito.lang.resolve.resolver import resolve
from fito.lang.syntax.parser import parse
from fito.types import reveal_types
from tests.types.types_helpers import DOMAINS, codes, column_of, line_of, only, pipeline, type_check


def test_snapshot_of_several_domains_is_a_product_at_increasing_times():
    text = pipeline("""
        let m = snapshot(gpu, host, nvme)
        let s = snapshot(gpu)
    """)
    model, _ = resolve(parse(text).spec)
    shown = {r.name: r.type for r in reveal_types(model)}
    assert shown["m"] == "Snap(gpu, t1) x Snap(host, t2) x Snap(nvme, t3)"
    assert shown["s"] == "Snap(gpu, t4)"


@pytest.mark.parametrize("consumer", ["restore", "resume", "deploy"])
def test_restoring_a_product_is_fito004_not_fito001(consumer):
    text = pipeline(f"""
        let m = snapshot(gpu, nvme)
        {consumer}(m)
    """)
    d = only(type_check(text), "FITO004")
    assert codes(type_check(text)) == ["FITO004"]
    assert (d.span.line, d.span.column) == (
        line_of(text, f"{consumer}(m)"),
        column_of(text, "m", f"{consumer}("),
    )
    assert "Snap(gpu, t1) x Snap(nvme, t2)" in d.message and "t1 < t2" in d.message
    assert "commit(P, e, gpu, nvme)" in (d.hint or "")


def test_a_product_with_epoch_metadata_is_still_not_atomic():
    text = pipeline("""
        epoch e
        let m = snapshot(gpu, host) @ e
        deploy(m)
        let c = converge(Trained, e, m)
        deploy(c)
    """)
    assert codes(type_check(text)) == ["FITO004"]


def test_time_of_a_product_is_fito004():
    text = pipeline("""
        let m = snapshot(gpu, nvme)
        let t = time(m)
    """)
    d = only(type_check(text), "FITO004")
    assert "one time" in d.message


def test_save_and_log_accept_products():
    text = pipeline("""
        let m = snapshot(gpu, nvme)
        save(m, host)
        log(m)
    """)
    assert type_check(text) == []


def test_products_of_cells_and_members_mix():
    text = pipeline(
        """
        let m = snapshot(weights, gpu)
        restore(m)
    """,
        header=DOMAINS + "domain weights: 0..3 = 0 durable\n",
    )
    assert codes(type_check(text)) == ["FITO004"]
