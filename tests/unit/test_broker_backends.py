"""Broker backends are configured right without starting anything, and fail clearly where they cannot run."""
import re
import subprocess

import pytest

from cdc_conformance.harness import images
from cdc_conformance.harness.broker import TEST_BROKER_SETTINGS, BrokerError, ExternalKafka, TestcontainersKafka, make_broker
from cdc_conformance.harness.broker.containers import kafka_env, kafka_node_settings
from cdc_conformance.harness.suite_files import SUITE_ROOT as REPO_ROOT

RUN_SCRIPT = REPO_ROOT / "harness" / "docker" / "kafka" / "rootfs" / "etc" / "kafka" / "docker" / "run"


def test_testcontainers_backend_defaults_to_the_official_image_at_the_pom_kafka_version(monkeypatch):
    monkeypatch.delenv("CDC_KAFKA_IMAGE", raising=False)
    backend = make_broker("testcontainers")
    assert isinstance(backend, TestcontainersKafka) and backend.image is None
    assert images.resolve(None) == "apache/kafka:4.1.1"
    assert images.resolve("my.registry/kafka:9") == "my.registry/kafka:9"
    monkeypatch.setenv("CDC_KAFKA_IMAGE", "other/kafka:1")
    assert images.resolve(None) == "other/kafka:1"


def test_properties_become_apache_kafka_image_variables_and_the_run_script_reverses_them():
    properties = ["log.dirs", "listener.security.protocol.map", "share.coordinator.state.topic.min.isr",
                  "a_b.c", "x-y.z"]
    env = kafka_env({p: "v" for p in properties})
    assert list(env) == ["KAFKA_LOG_DIRS", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
                         "KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR", "KAFKA_A__B_C", "KAFKA_X___Y_Z"]
    # the image's own rule, taken from the script the image runs
    rule = re.search(r"sed (-e .*?) \| tr 'A-Z' 'a-z'", RUN_SCRIPT.read_text()).group(1)
    for prop, name in zip(properties, env):
        back = subprocess.run(f"printf '%s' '{name[len('KAFKA_'):]}' | sed {rule} | tr 'A-Z' 'a-z'", shell=True,
                              capture_output=True, text=True, check=True).stdout
        assert back == prop


def test_a_container_node_advertises_its_loopback_host_port_and_keeps_the_test_settings():
    settings = kafka_node_settings(43210)
    assert "PLAINTEXT://127.0.0.1:43210" in settings["advertised.listeners"].split(",")
    assert "PLAINTEXT://0.0.0.0:9092" in settings["listeners"].split(",")
    assert settings["process.roles"] == "broker,controller"
    assert TEST_BROKER_SETTINGS.items() <= settings.items()
    assert settings["auto.create.topics.enable"] == "false"


def test_the_local_image_tag_changes_with_what_goes_into_it():
    assert images.local_tag("base-a") != images.local_tag("base-b")
    assert images.local_tag("base-a") == images.local_tag("base-a")
    assert images.local_tag("base-a").startswith("cdc-conformance/kafka:4.1.1-")


def test_testcontainers_without_docker_says_so_in_one_clear_error(monkeypatch):
    monkeypatch.setattr("cdc_conformance.harness.broker.containers.docker_unavailable_reason", lambda: "no Docker socket")
    with pytest.raises(BrokerError, match="needs a Docker engine: no Docker socket"):
        TestcontainersKafka().start()


def test_external_backend_needs_bootstrap_servers():
    with pytest.raises(BrokerError, match="needs bootstrap servers"):
        ExternalKafka().start()


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="unknown broker backend"):
        make_broker("zookeeper")
