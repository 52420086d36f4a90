"""The fito language server (pygls), a thin layer over `fito.editors.lsp.features`: diagnostics as
you type (parse, names, types, FITO codes), verdicts of the assertions when a file is saved
(a failing one shows its counterexample), hover with a name's type, go to definition, and
formatting. Run it with `fito lsp` (stdio)."""

from __future__ import annotations

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer

from fito import __version__
from fito.diagnostics import Diagnostic, Span
from fito.editors.lsp import features

server = LanguageServer("fito", __version__, text_document_sync_kind=T.TextDocumentSyncKind.Full)
_SEVERITY = {
    "error": T.DiagnosticSeverity.Error,
    "warning": T.DiagnosticSeverity.Warning,
    "note": T.DiagnosticSeverity.Information,
}


def _position(text: str, line: int, column: int) -> T.Position:
    """fito's 1-based line and character column as LSP's 0-based line and UTF-16 offset."""
    lines = text.split("\n")
    here = lines[line - 1] if 0 < line <= len(lines) else ""
    units = len(here[: max(column - 1, 0)].encode("utf-16-le")) // 2
    return T.Position(line=max(line - 1, 0), character=units)


def _column(text: str, pos: T.Position) -> tuple[int, int]:
    """LSP's position as fito's (line, column)."""
    lines = text.split("\n")
    here = lines[pos.line] if pos.line < len(lines) else ""
    prefix = here.encode("utf-16-le")[: pos.character * 2].decode("utf-16-le", "ignore")
    return pos.line + 1, len(prefix) + 1


def _range(text: str, span: Span) -> T.Range:
    start = _position(text, span.line, span.column)
    end = _position(text, span.end_line, span.end_column)
    if (end.line, end.character) <= (start.line, start.character):
        end = T.Position(line=start.line, character=start.character + 1)
    return T.Range(start=start, end=end)


def lsp_diagnostic(text: str, d: Diagnostic) -> T.Diagnostic:
    message = d.message + "".join(f"\nnote: {n}" for n in d.notes)
    if d.hint:
        message += f"\nhint: {d.hint}"
    return T.Diagnostic(
        range=_range(text, d.span),
        message=message,
        code=d.code,
        severity=_SEVERITY.get(d.severity, T.DiagnosticSeverity.Information),
        source="fito",
        code_description=None,
    )


def _verdict_diagnostics(text: str) -> list[T.Diagnostic]:
    """A diagnostic for every assertion that does not hold: an error when it fails, a
    warning when it is unknown; but information only when the line's `-- expect:` comment
    says that verdict (a spec that fails on purpose, as `fito check --expect` accepts it),
    and an error that says what was expected when the verdict differs from it."""
    from fito.expect import expected_verdicts  # lazy-import: only saved files are checked
    from fito.render.text import render_run  # lazy-import: only failing assertions render a run

    expected = expected_verdicts(text)
    rows = text.split("\n")
    out = []
    for v in features.check_assertions(text):
        want = expected.get(v.line)
        met = want is not None and want[0] == v.verdict and want[1] in (None, len(v.trace))
        if v.verdict == "holds" and (want is None or met):
            continue
        head = f"{v.text}: {v.verdict}"
        if met:
            head += ", as its `-- expect:` comment says"
        elif want is not None:
            shown = want[0] + (f" in {want[1]}" if want[1] is not None else "")
            head += f" (its `-- expect:` comment says {shown})"
        lines = [head + (f" ({v.reason})" if v.reason else "")]
        if v.run is not None and v.run.steps:
            lines += render_run(v.run, "counterexample" if v.verdict == "fails" else "witness")
        line = rows[v.line - 1] if v.line - 1 < len(rows) else ""
        if met:
            severity = T.DiagnosticSeverity.Information
        elif v.verdict == "unknown":
            severity = T.DiagnosticSeverity.Warning
        else:
            severity = T.DiagnosticSeverity.Error
        out.append(
            T.Diagnostic(
                range=T.Range(
                    start=T.Position(line=v.line - 1, character=0),
                    end=T.Position(line=v.line - 1, character=len(line)),
                ),
                message="\n".join(lines),
                code={"fails": "M005", "unknown": "M006"}.get(v.verdict),
                severity=severity,
                source="fito",
            )
        )
    return out


def _publish(ls: LanguageServer, uri: str, verdicts: bool) -> None:
    text = ls.workspace.get_text_document(uri).source
    analysis = features.analyse(text)
    diags = [lsp_diagnostic(text, d) for d in analysis.diagnostics]
    if (
        verdicts
        and analysis.model is not None
        and not any(d.is_error for d in analysis.diagnostics)
    ):
        diags += _verdict_diagnostics(text)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags))


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, verdicts=True)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, verdicts=False)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
    _publish(ls, params.text_document.uri, verdicts=True)


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: LanguageServer, params: T.HoverParams) -> T.Hover | None:
    text = ls.workspace.get_text_document(params.text_document.uri).source
    line, column = _column(text, params.position)
    shown = features.hover(features.analyse(text, type_check=False), line, column)
    if shown is None:
        return None
    return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=shown))


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: LanguageServer, params: T.DefinitionParams) -> T.Location | None:
    uri = params.text_document.uri
    text = ls.workspace.get_text_document(uri).source
    line, column = _column(text, params.position)
    span = features.definition(features.analyse(text, type_check=False), line, column)
    return None if span is None else T.Location(uri=uri, range=_range(text, span))


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: LanguageServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
    text = ls.workspace.get_text_document(params.text_document.uri).source
    new = features.formatted(text)
    if new is None or new == text:
        return None if new is None else []
    lines = text.split("\n")
    end = T.Position(line=len(lines) - 1, character=len(lines[-1].encode("utf-16-le")) // 2)
    return [T.TextEdit(range=T.Range(start=T.Position(line=0, character=0), end=end), new_text=new)]


def main() -> None:
    """Serve over standard input and output until the client says exit. Each session gets a
    fresh thread pool (the server object outlives a session when main runs twice in one
    process); a read pygls schedules after the client's `exit` shut the pool is the end of
    the session, not an error."""
    server._thread_pool = None  # noqa: SLF001 - pygls makes a new pool lazily
    try:
        server.start_io()
    except RuntimeError as exc:
        if "after shutdown" not in str(exc):
            raise


if __name__ == "__main__":
    main()
