"""Progress of long commands: plain lines off a terminal (CI logs), a live display on one, never on stdout."""
import io

from cdc_conformance.harness.progress import Progress


def _run(progress: Progress) -> None:
    with progress.phase("certifying 2 version(s)", total=2) as done:
        with progress.phase("ces-json@1: property, 20 examples"):
            pass
        done()
        progress.note("ces-json@1 certified")
        done()


def test_off_a_terminal_each_phase_is_a_start_line_and_an_end_line_with_counts(capsys):
    stream = io.StringIO()
    _run(Progress(stream=stream, terminal=False))
    lines = [line.split("] ", 1)[1] for line in stream.getvalue().splitlines()]
    assert lines == ["certifying 2 version(s) ... (2)", "ces-json@1: property, 20 examples ...",
                     "ces-json@1: property, 20 examples: done (0.0 s)", "ces-json@1 certified",
                     "certifying 2 version(s): done (2/2, 0.0 s)"]
    assert capsys.readouterr().out == ""


def test_on_a_terminal_nested_phases_share_one_live_display(capsys):
    stream = io.StringIO()
    _run(Progress(stream=stream, terminal=True))  # rich allows one live display: a second would raise
    shown = stream.getvalue()
    assert "certifying 2 version(s)" in shown and "2/2" in shown and "ces-json@1 certified" in shown
    assert capsys.readouterr().out == ""


def test_by_default_progress_goes_to_standard_error(capsys):
    _run(Progress(terminal=False))
    captured = capsys.readouterr()
    assert captured.out == "" and "certifying 2 version(s): done (2/2" in captured.err
