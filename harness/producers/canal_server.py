"""alibaba canal's own server (CanalLauncher, from Maven-resolved jars: harness/maven/canal) reading a MariaDB server's
binary log and writing FlatMessages to a broker, as a canal deployment in `serverMode = kafka` does.

Maven Central serves canal's jars but not its distribution (conf/canal.properties, conf/spring/*-instance.xml), so the
configuration is written here: canal.properties with the Kafka producer's settings as the distribution's defaults
have them, and an instance definition wiring the beans canal's `memory-instance.xml` wires (a binlog parser, a
memory store, its sink, memory positions), without table-structure history (`tsdb`: canal then reads each table's
definition from the server when it first meets the table, which is what it holds throughout a run here).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

from cdc_conformance.harness import jvm
from cdc_conformance.harness.broker.base import free_port
from cdc_conformance.harness.processes import log_tail, started, stop_group
from cdc_conformance.harness.producers.postgres import ProducerUnavailable

DESTINATION = "cdc"  # canal's name for the instance (canal.destinations)


def _properties(settings: dict[str, object]) -> str:
    return "".join(f"{key} = {value}\n" for key, value in settings.items())


def _bean(bean_id: str | None, cls: str, properties: dict[str, object], extra: str = "") -> str:
    """A Spring bean: plain values as value attributes, nested beans (text starting with '<') as themselves."""
    inner = "".join(f'<property name="{name}">{value}</property>' if isinstance(value, str) and value.startswith("<")
                    else f'<property name="{name}" value={quoteattr(str(value))}/>' for name, value in properties.items())
    named = f' id="{bean_id}"' if bean_id else ""
    return f'<bean{named} class="{cls}">{inner}{extra}</bean>'


@dataclass
class CanalServer:
    """canal 1.1.4 reading `database_port` (as `user`/`password`) from the binlog's current end, its FlatMessages for
    the tables `filter` matches (canal's `schema.table` regular expressions, comma-separated) going to `topic`."""

    bootstrap_servers: str
    database_port: int
    user: str
    password: str
    filter: str
    topic: str
    start_timeout: float = 90.0
    workdir: Path | None = None
    _process: subprocess.Popen | None = field(default=None, repr=False)

    def _instance_xml(self) -> str:
        parser = "com.alibaba.otter.canal.parse.inbound.mysql.MysqlEventParser"
        master = _bean(None, "com.alibaba.otter.canal.parse.support.AuthenticationInfo",
                       {"address": f"127.0.0.1:{self.database_port}", "username": self.user, "password": self.password})
        regex = ('<bean class="com.alibaba.otter.canal.filter.aviater.AviaterRegexFilter">'
                 f'<constructor-arg index="0" value={quoteattr(self.filter)}/></bean>')
        beans = [
            '<bean id="socketAddressEditor" class="com.alibaba.otter.canal.instance.spring.support.SocketAddressEditor"/>',
            '<bean class="org.springframework.beans.factory.config.CustomEditorConfigurer"><property '
            'name="propertyEditorRegistrars"><list><ref bean="socketAddressEditor"/></list></property></bean>',
            _bean("instance", "com.alibaba.otter.canal.instance.spring.CanalInstanceWithSpring", {
                "destination": DESTINATION, "eventParser": '<ref bean="eventParser"/>', "eventSink": '<ref bean="eventSink"/>',
                "eventStore": '<ref bean="eventStore"/>', "metaManager": '<ref bean="metaManager"/>',
                "alarmHandler": '<ref bean="alarmHandler"/>', "mqConfig": '<ref bean="mqConfig"/>'}),
            '<bean id="alarmHandler" class="com.alibaba.otter.canal.common.alarm.LogAlarmHandler"/>',
            '<bean id="metaManager" class="com.alibaba.otter.canal.meta.MemoryMetaManager"/>',
            # the distribution's defaults: 16384 entries of 1 KiB, counted by memory
            _bean("eventStore", "com.alibaba.otter.canal.store.memory.MemoryEventStoreWithBuffer", {
                "bufferSize": 16384, "bufferMemUnit": 1024, "batchMode": "MEMSIZE", "ddlIsolation": "false", "raw": "false"}),
            _bean("eventSink", "com.alibaba.otter.canal.sink.entry.EntryEventSink", {
                "eventStore": '<ref bean="eventStore"/>', "filterTransactionEntry": "false"}),
            _bean("eventParser", parser, {
                "destination": DESTINATION, "slaveId": 0, "detectingEnable": "false", "alarmHandler": '<ref bean="alarmHandler"/>',
                # the instance asks it whether to start (no standby server to switch to: never)
                "haController": '<bean class="com.alibaba.otter.canal.parse.ha.HeartBeatHAController"/>',
                "eventFilter": regex, "transactionSize": 1024, "connectionCharset": "UTF-8",
                "logPositionManager": '<bean class="com.alibaba.otter.canal.parse.index.MemoryLogPositionManager"/>',
                "masterInfo": master, "enableTsdb": "false", "isGTIDMode": "false", "parallel": "true",
                # the distribution's canal.properties: DDL parsed by druid, DML statements (annotations) kept
                "useDruidDdlFilter": "true", "filterQueryDml": "false",
                "parallelBufferSize": 256, "supportBinlogFormats": "ROW", "supportBinlogImages": "FULL,MINIMAL,NOBLOB"}),
            # one topic, one partition: the order of the binlog (canal.mq.partition = 0, no partitionHash)
            _bean("mqConfig", "com.alibaba.otter.canal.instance.core.CanalMQConfig", {"topic": self.topic, "partition": 0}),
        ]
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<beans xmlns="http://www.springframework.org/schema/beans" '
                'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.springframework.org/'
                'schema/beans http://www.springframework.org/schema/beans/spring-beans-2.0.xsd" default-autowire="byName">\n'
                + "\n".join(beans) + "\n</beans>\n")

    def _canal_properties(self) -> dict:
        """canal.properties: kafka mode, one destination from the instance definition above, no admin port, no ZK; the
        producer settings are the distribution's defaults but for lingerMs (100 there: a run waits on its last record)."""
        assert self.workdir is not None
        return {
            "canal.serverMode": "kafka", "canal.destinations": DESTINATION, "canal.conf.dir": self.workdir,
            "canal.auto.scan": "false", "canal.instance.global.mode": "spring", "canal.instance.global.lazy": "false",
            "canal.instance.global.spring.xml": f"file:{self.workdir / 'instance.xml'}",
            "canal.port": free_port(), "canal.metrics.pull.port": free_port(), "canal.withoutNetty": "true",
            "canal.mq.servers": self.bootstrap_servers, "canal.mq.retries": 0, "canal.mq.batchSize": 16384,
            "canal.mq.maxRequestSize": 1048576, "canal.mq.lingerMs": 1, "canal.mq.bufferMemory": 33554432,
            "canal.mq.canalBatchSize": 50, "canal.mq.canalGetTimeout": 100, "canal.mq.flatMessage": "true",
            "canal.mq.compressionType": "none", "canal.mq.acks": "all",
        }

    def start(self) -> CanalServer:
        try:
            classpath = os.pathsep.join(str(jar) for jar in jvm.ensure(jvm.canal_artifacts()))
        except jvm.ArtifactError as error:
            raise ProducerUnavailable(f"canal {jvm.CANAL_VERSION} from Maven: {str(error).splitlines()[0]}") from error
        self.workdir = Path(tempfile.mkdtemp(prefix="cdc-canal-"))
        (self.workdir / "canal.properties").write_text(_properties(self._canal_properties()))
        (self.workdir / "instance.xml").write_text(self._instance_xml())
        (self.workdir / "logback.xml").write_text(
            f'<configuration><appender name="file" class="ch.qos.logback.core.FileAppender"><file>{self.log_file}</file>'
            '<encoder><pattern>%d %-5level [%thread] %logger{36} - %msg%n</pattern></encoder></appender>'
            '<root level="INFO"><appender-ref ref="file"/></root></configuration>\n')
        command = [jvm.java_executable(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-Dfile.encoding=UTF-8",
                   f"-Dcanal.conf={self.workdir / 'canal.properties'}",
                   f"-Dlogback.configurationFile={self.workdir / 'logback.xml'}",
                   "-cp", classpath, "com.alibaba.otter.canal.deployer.CanalLauncher"]
        self._process = started(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=open(self.workdir / "stderr.log", "ab"),
                                                 start_new_session=True, cwd=self.workdir))
        return self

    @property
    def log_file(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "canal.log"

    def failure(self) -> str | None:
        """canal logs its failures and keeps running: the first ERROR line of its log, or its exit."""
        if self._process is not None and self._process.poll() is not None:
            return f"canal exited with {self._process.returncode}:\n{self.log_tail()}"
        if self.workdir is None or not self.log_file.exists():
            return None
        errors = [line for line in self.log_file.read_text(errors="replace").splitlines() if " ERROR " in line]
        return f"{errors[0]}\n{self.log_tail()}" if errors else None

    def log_tail(self, lines: int = 40) -> str:
        return log_tail(self.workdir and self.log_file, lines, "(no canal log)")

    def stop(self) -> None:
        process, self._process = self._process, None
        stop_group(process)
        if self.workdir is not None and not os.environ.get("CDC_KEEP_CANAL"):  # set: keep its log and configuration
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    def __enter__(self) -> CanalServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
