"""A real S3-compatible server for the tests: moto in server mode, started as a subprocess on
first use (once per test session and xdist worker), with authentication on, so that signatures
are checked and a wrong secret is refused as by AWS. Loaded as a plugin by conftest.py.

``s3_server`` gives its address and the keys of a user allowed everything; its ``storage()``
builds an ``S3Storage`` whose outbound policy allow-lists the server (as
``CALPRESS_OUTBOUND_ALLOW=127.0.0.1:<port>`` would).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode

import pytest
from appfixtures import stop_process

from calpress import net
from calpress.media.s3 import S3Storage, sign_v4

# moto accepts this many requests without checking them: the IAM calls that create the user, its
# policy and its keys. Every request after them must be signed with those keys.
_BOOTSTRAP_REQUESTS = 3


@dataclass
class S3Server:
    endpoint: str
    port: int
    access_key: str
    secret_key: str

    @property
    def policy(self) -> net.NetPolicy:
        return net.NetPolicy(allow=(f"127.0.0.1:{self.port}",), timeout=30.0, max_bytes=64 * 1024 * 1024)

    def storage(self, bucket: str = "media", **kwargs) -> S3Storage:
        options = {"access_key": self.access_key, "secret_key": self.secret_key, "policy": self.policy} | kwargs
        return S3Storage(bucket=bucket, endpoint=self.endpoint, **options)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _iam(client: net.Client, endpoint: str, host: str, **params: str) -> str:
    """One IAM query call (moto routes it by the signature's service), signed with dummy keys:
    moto does not check the first requests."""
    body = urlencode({**params, "Version": "2010-05-08"}).encode()
    headers = sign_v4(
        "POST", host, "/", {"content-type": "application/x-www-form-urlencoded"}, hashlib.sha256(body).hexdigest(),
        access_key="AKIABOOTSTRAP0000000", secret_key="bootstrap", region="us-east-1",
        now=datetime.now(UTC), service="iam",
    )
    answer = client.request("POST", endpoint + "/", headers=headers, content=body)
    assert answer.status == 200, answer.content
    return answer.content.decode()


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """A moto S3 server for the test session (per xdist worker), with a user whose keys sign
    every request and the bucket ``media``; skipped when moto is not installed."""
    pytest.importorskip("moto.server", reason="moto[server] is not installed (pip install -e '.[test]')")
    port = _free_port()
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT=str(_BOOTSTRAP_REQUESTS), MOTO_ALLOW_NONEXISTENT_REGION="1")
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        start_new_session=True,  # its signals to its process group stay away from the test process
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("moto server did not start")
                time.sleep(0.1)
        endpoint = f"http://127.0.0.1:{port}"
        policy = net.NetPolicy(allow=(f"127.0.0.1:{port}",))
        with net.Client(policy) as client:
            host = f"127.0.0.1:{port}"
            _iam(client, endpoint, host, Action="CreateUser", UserName="calpress")
            document = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
            _iam(client, endpoint, host, Action="PutUserPolicy", UserName="calpress", PolicyName="s3",
                 PolicyDocument=json.dumps(document))
            created = _iam(client, endpoint, host, Action="CreateAccessKey", UserName="calpress")
        access_key = re.search(r"<AccessKeyId>([^<]+)</AccessKeyId>", created).group(1)
        secret_key = re.search(r"<SecretAccessKey>([^<]+)</SecretAccessKey>", created).group(1)
        server = S3Server(endpoint, port, access_key, secret_key)
        storage = server.storage()
        storage.create_bucket()
        storage.create_bucket()  # already ours: fine
        storage.close()
        yield server
    finally:
        stop_process(process)
