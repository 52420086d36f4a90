"""The language server over stdio, driven by pygls's LSP client as an editor would: it
publishes diagnostics as the text changes (and verdicts when it opens or is saved),
answers hover with a name's type, goes to definitions and formats the document."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as T  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from fito.lang.printer.fmt import format_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAIVE = (ROOT / "specs" / "checkpoint_naive.fito").read_text(encoding="utf-8")
PIPES = (ROOT / "specs" / "pipelines.fito").read_text(encoding="utf-8")
URI = "file:///work/naive.fito"


def where(text: str, needle: str, nth: int = 1) -> T.Position:
    """A position inside the nth occurrence of needle, outside comments (its second
    character)."""
    for i, line in enumerate(text.split("\n")):
        code = line.split("--", 1)[0]
        start = 0
        while (j := code.find(needle, start)) >= 0:
            nth -= 1
            if nth == 0:
                return T.Position(line=i, character=j + 1)
            start = j + 1
    raise AssertionError(needle)


async def session() -> dict:
    client = LanguageClient("fito-test", "1")
    published: dict[str, list] = {}
    arrived = asyncio.Event()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: T.PublishDiagnosticsParams) -> None:
        published.setdefault(params.uri, []).append(params.diagnostics)
        arrived.set()

    async def next_diagnostics() -> list:
        await asyncio.wait_for(arrived.wait(), 120)
        arrived.clear()
        return published[URI][-1]

    await client.start_io(sys.executable, "-m", "fito", "lsp", cwd=str(ROOT))
    got: dict = {}
    try:
        await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities()))
        client.initialized(T.InitializedParams())
        doc = T.TextDocumentIdentifier(uri=URI)
        client.text_document_did_open(
            T.DidOpenTextDocumentParams(
                text_document=T.TextDocumentItem(uri=URI, language_id="fito", version=1, text=NAIVE)
            )
        )
        got["open"] = await next_diagnostics()
        broken = NAIVE.replace("flush.d!live", "flush.d!lve")
        client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=URI, version=2),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=broken)],
            )
        )
        got["typing"] = await next_diagnostics()
        client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=URI, version=3),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=NAIVE)],
            )
        )
        await next_diagnostics()
        for name, needle, nth in [
            ("cell", "saved", 2),
            ("channel", "flush", 2),
            ("member", "gpu", 2),
        ]:
            got[name] = await client.text_document_hover_async(
                T.HoverParams(text_document=doc, position=where(NAIVE, needle, nth))
            )
        got["definition"] = await client.text_document_definition_async(
            T.DefinitionParams(text_document=doc, position=where(NAIVE, "Flusher", 2))
        )
        ugly = NAIVE.replace("process Trainer = ", "process   Trainer=")
        client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=URI, version=4),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=ugly)],
            )
        )
        await next_diagnostics()
        got["format"] = await client.text_document_formatting_async(
            T.DocumentFormattingParams(
                text_document=doc, options=T.FormattingOptions(tab_size=2, insert_spaces=True)
            )
        )
        got["ugly"] = ugly
        client.text_document_did_change(
            T.DidChangeTextDocumentParams(
                text_document=T.VersionedTextDocumentIdentifier(uri=URI, version=5),
                content_changes=[T.TextDocumentContentChangeWholeDocument(text=PIPES)],
            )
        )
        await next_diagnostics()
        spot = where(PIPES, "save(s")
        got["snap"] = await client.text_document_hover_async(
            T.HoverParams(
                text_document=doc, position=T.Position(line=spot.line, character=spot.character + 4)
            )
        )
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
    return got


def test_the_language_server_over_stdio() -> None:
    got = asyncio.run(session())
    failing = [d for d in got["open"] if d.code == "M005"]
    assert len(failing) == 1 and failing[0].range.start.line == 23
    assert "flush.gpu.1" in failing[0].message
    typing = [d for d in got["typing"] if d.code == "R001"]
    assert len(typing) == 1 and "'lve'" in typing[0].message
    spot = where(NAIVE.replace("flush.d!live", "flush.d!lve"), "lve")
    assert typing[0].range.start == T.Position(line=spot.line, character=spot.character - 1)
    assert "domain saved[d: Dom]: Epoch = 0 durable" in got["cell"].contents.value
    assert "3 cells" in got["cell"].contents.value and "0..2" in got["cell"].contents.value
    assert "channel flush: Dom.Epoch" in got["channel"].contents.value
    assert "gpu: Dom" in got["member"].contents.value
    assert got["definition"].range.start.line == where(NAIVE, "Flusher").line
    (edit,) = got["format"]
    assert edit.new_text == format_text(got["ugly"]).text
    assert "s: Snap(gpu, t1)" in got["snap"].contents.value


def verdict_diagnostics(text: str) -> list[tuple[int, str | None, int, str]]:
    from fito.editors.lsp.server import _verdict_diagnostics

    return [
        (d.range.start.line + 1, d.code, int(d.severity or 0), d.message.split("\n")[0])
        for d in _verdict_diagnostics(text)
    ]


def test_an_assertion_that_fails_as_expected_is_not_an_error() -> None:
    info, error = int(T.DiagnosticSeverity.Information), int(T.DiagnosticSeverity.Error)
    ((line, code, severity, head),) = verdict_diagnostics(NAIVE)  # `-- expect: fails in 2`
    assert (line, code, severity) == (24, "M005", info)
    assert ": fails, as its `-- expect:` comment says (violated in the last state" in head
    bare = "\n".join(line.split("-- expect:")[0].rstrip() for line in NAIVE.split("\n"))
    ((line, code, severity, _),) = verdict_diagnostics(bare)
    assert (line, code, severity) == (24, "M005", error)
    wrong = NAIVE.replace("-- expect: fails in 2", "-- expect: holds")
    ((line, code, severity, head),) = verdict_diagnostics(wrong)
    assert (line, code, severity) == (24, "M005", error)
    assert ": fails (its `-- expect:` comment says holds) (violated" in head
    wrong = NAIVE.replace("-- expect: holds", "-- expect: fails", 1)  # line 25 holds
    got = verdict_diagnostics(wrong)
    assert [(line, code, severity) for line, code, severity, _ in got] == [
        (24, "M005", info),
        (25, None, error),
    ]
