"""canal's own server as the real-producer tier runs it, without running it: the configuration written for it (Maven
Central serves canal's jars, not its distribution's conf/) and the canal generator's imitation of what it wrote."""
import xml.etree.ElementTree as ElementTree

import pytest

from cdc_conformance.generators import canal
from cdc_conformance.harness.producers.canal_server import DESTINATION, CanalServer

_BEANS = "{http://www.springframework.org/schema/beans}"


def test_the_instance_definition_wires_what_canal_starts_and_quotes_what_it_is_given(tmp_path):
    server = CanalServer("127.0.0.1:9092", 3306, "reader", 'pa"ss<&', r"shop\.orders,cdc_harness\.progress", "canal-topic",
                         workdir=tmp_path)
    beans = ElementTree.fromstring(server._instance_xml())
    named = {bean.get("id"): bean for bean in beans.iter(f"{_BEANS}bean") if bean.get("id")}
    assert {"instance", "eventParser", "eventStore", "eventSink", "metaManager", "alarmHandler", "mqConfig"} <= named.keys()
    values = {prop.get("name"): prop.get("value") for prop in beans.iter(f"{_BEANS}property") if prop.get("value")}
    assert values["password"] == 'pa"ss<&' and values["topic"] == "canal-topic" and values["destination"] == DESTINATION
    # the instance asks its parser's HA controller whether to start: without one it fails (seen on 1.1.4)
    assert any(b.get("class", "").endswith("HeartBeatHAController") for b in beans.iter(f"{_BEANS}bean"))
    properties = server._canal_properties()
    assert properties["canal.serverMode"] == "kafka" and properties["canal.mq.servers"] == "127.0.0.1:9092"
    assert properties["canal.instance.global.spring.xml"] == f"file:{tmp_path / 'instance.xml'}"


@pytest.mark.parametrize("text, written", [
    ("0.00", "0.0"), ("5.00", "5.0"), ("5.50", "5.50"), ("-0.05", "-0.05"), ("12", "12"),
    ("0." + "0" * 30, "0." + "0" * 27),  # decimal(65,30): three full groups and a zero group of three
    ("1.1234567890", "1.123456789"), ("1.1234567891", "1.1234567891"), ("9.123456789", "9.123456789"),
])
def test_decimals_as_canals_binlog_reader_writes_them(text, written):
    assert canal.binlog_decimal_text(text) == written
