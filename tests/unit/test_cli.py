"""CLI misuse: one line on stderr and exit code 2."""
import subprocess
import sys

import pytest


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["run", "--bogus"], "No such option"),
    (["run", "--case", "no-such-case"], "no such case: no-such-case"),
    (["run", "--broker", "zookeeper"], "Invalid value for '--broker'"),
    (["run", "--broker", "external"], "--broker external needs --bootstrap-servers"),
    (["run", "--format", "nope"], "the selection matches no case"),
    (["frobnicate"], "No such command"),
    (["bench", "--all", "--format", "ces-json"], "give either --all or --format"),
    (["bench", "--messages", "10"], "Invalid value for '--messages'"),
    (["certify"], "give one of FORMAT@VERSION, --all or --check"),
    (["certify", "nope@1"], "no format version nope@1"),
    (["certify", "debezium-json@3.2", "--check"], "give one of"),
    (["certify", "--all", "--check"], "give one of"),
    (["certify", "debezium-json@3.2", "--normalizer", "tests.broken_normalizer:normalize", "--certifications-dir",
      "reports/certifications"], "holds the suite's records of the reference normalizer"),
])
def test_misuse_is_one_line_and_exit_2(args, message):
    result = _cli(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_lint_and_formats_succeed():
    assert _cli("lint").returncode == 0
    formats = _cli("formats")
    assert formats.returncode == 0 and "debezium-json@2.7" in formats.stdout


def test_readme_format_table_is_the_registry():
    from pathlib import Path

    from harness.registry import Registry

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme.split("<!-- formats:begin -->\n", 1)[1].split("\n<!-- formats:end -->", 1)[0]
    assert table == Registry.load().markdown_table(), "regenerate with: cdc-conformance formats --markdown"


def test_readme_run_summary_is_the_cases_and_golden_files():
    from pathlib import Path

    from harness.cases import load_cases
    from harness.reports import expected_summary
    from harness.runner import load_known_failures

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = readme.split("<!-- summary:begin -->\n```\n", 1)[1].split("\n```\n<!-- summary:end -->", 1)[0]
    assert block == expected_summary(load_cases(), load_known_failures()), "regenerate with: cdc-conformance formats --summary"


def test_canonical_model_doc_lists_every_code_under_its_phase():
    import re
    from pathlib import Path

    from normalizer.model import CODE_PHASE

    doc = (Path(__file__).resolve().parents[2] / "docs" / "canonical-model.md").read_text()
    listed = {(code, phase) for phase, codes in re.findall(r"^\| (DECODE|VALIDATE|ASSEMBLE|CONVERT) \| (.+?) \|", doc, re.M)
              for code in re.findall(r"`([A-Z_0-9]+)`", codes)}
    assert listed == {(code.value, phase.value) for code, phase in CODE_PHASE.items()}


def test_readme_lists_every_code_under_its_phase():
    import re
    from pathlib import Path

    from normalizer.model import CODE_PHASE

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    paragraph = readme[readme.index("- **Quarantine**"):].split("\n- ", 1)[0]
    listed = {(code, phase) for phase, codes in re.findall(r"(DECODE|VALIDATE|CONVERT|ASSEMBLE)\s+([^;.]+)", paragraph)
              for code in re.findall(r"`([A-Z_0-9]+)`", codes)}
    assert listed == {(code.value, phase.value) for code, phase in CODE_PHASE.items()}


def test_the_replay_command_carries_what_the_run_was_given():
    from pathlib import Path

    from harness.cli.suite import replay_options

    assert replay_options("normalizer.pipeline:normalize", None, None, None, "embedded", None, None) == ""
    options = replay_options("mypkg.job:normalize", Path("my cases"), Path("gold"), None, "external", "h:9092", None)
    assert options == " --normalizer mypkg.job:normalize --cases-dir 'my cases' --golden-dir gold --broker external --bootstrap-servers h:9092"


def test_promote_checks_its_arguments_before_any_jvm_and_refuses_an_unredacted_capture(tmp_path):
    from harness import reproduce

    capture = tmp_path / "bug.yaml"
    record = reproduce.record_item("t", 0, 5, b'{"id":1}', b'{"op":"c"}', [])
    reproduce.save(reproduce.capture_document("debezium-json", [record], {"source": "a test"}), capture)
    cases = ["--cases-dir", str(tmp_path / "cases"), "--golden-dir", str(tmp_path / "golden")]
    unknown = _cli("promote", str(capture), "--id", "x-y", "--feature", "nosuchfeature", *cases)
    assert unknown.returncode == 2 and "--feature nosuchfeature: not a feature of debezium-json" in unknown.stderr
    unredacted = _cli("promote", str(capture), "--id", "x-y", "--feature", "insert", *cases)
    assert unredacted.returncode == 2 and "was never redacted" in unredacted.stderr
    assert len(unredacted.stderr.strip().splitlines()) == 1 and not (tmp_path / "cases").exists()


def test_a_jvm_part_that_cannot_be_had_is_its_tool_s_words_and_exit_1(monkeypatch, capsys):
    """Maven or javac failing (no JDK, no network to a registry) is no misuse and no crash: what the tool said, no
    traceback, exit 1."""
    from harness import jvm
    from harness.cli import main

    def refused(artifacts):
        raise jvm.ArtifactError(f"mvn failed for {artifacts.name} {artifacts.version}:\n[ERROR] Could not resolve")

    monkeypatch.setattr(jvm, "ensure", refused)
    with pytest.raises(SystemExit) as exit_:
        main(["jvm"])
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and err.startswith("cdc-conformance: mvn failed for kafka") and "Traceback" not in err
