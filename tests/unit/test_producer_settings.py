"""The real-producer tier's settings (harness.producers.settings): each names a generator profile that exists, each
has its row in docs/producers.md, and combining two that disagree is refused."""
import pytest

from cdc_conformance.generators import debezium
from cdc_conformance.harness import suite_files
from cdc_conformance.harness.producers import settings


@pytest.mark.parametrize("setting", list(settings.SETTINGS.values()), ids=lambda s: s.name)
def test_each_setting_is_a_generator_profile_and_a_documented_row(setting):
    profile = debezium.Profile(**setting.profile)  # a field the Profile lacks raises here
    assert all(getattr(profile, name) == value for name, value in setting.profile.items())
    doc = (suite_files.SUITE_ROOT / "docs" / "producers.md").read_text()
    assert f"| `{setting.name}` |" in doc, f"docs/producers.md has no settings row for {setting.name}"


def test_combined_settings_merge_and_a_clash_is_refused():
    both = settings.parse("binary-hex,decimal-numeric")
    assert both.connector == {"binary.handling.mode": "hex"}
    assert both.profile == {"binary_handling": "hex", "decimal_format": "numeric"}
    with pytest.raises(ValueError, match="binary.handling.mode"):
        settings.parse("binary-hex,binary-base64")
    with pytest.raises(ValueError, match="no setting"):
        settings.parse("binary-octal")


def test_the_rotation_takes_every_setting_within_a_few_seeds():
    others = len(settings.SETTINGS) - 1
    seen = {s.name for seed in range(-(-others // settings.ROTATION_SIZE)) for s in settings.rotation(seed)}
    assert seen == set(settings.SETTINGS)


def test_database_properties_and_topics_combine_and_an_undrawn_setting_stays_undrawn():
    both = settings.parse("heartbeats,schema-changes")
    assert both.connector_for("mariadb") == {"heartbeat.interval.ms": 100, "heartbeat.action.query": "SELECT 1",
                                             "include.schema.changes": "true"}
    assert "include.schema.changes" not in both.connector_for("postgresql")
    assert both.topics == ("__debezium-heartbeat.{prefix}", "{prefix}.message", "{prefix}")
    assert both.drawn == ("postgresql", "mariadb")
    assert settings.parse("tombstones-off,time-connect").drawn == ("postgresql",)
    # drawn on one database each: the generator writes the pair on neither
    assert settings.parse("time-connect,bigint-unsigned-precise").drawn == ()
