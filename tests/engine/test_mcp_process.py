"""The bundled MCP server as a process: how it is started and stopped, the environment its
child gets, DNS-rebinding protection and "port in use"."""

from __future__ import annotations

import socket

import httpx
import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.llm.keys import ENV_VARS, LLM_KEY, YOUTUBE_KEY
from roundtable_desktop.sources.mcp_process import (
    LLM_KEY_ENV,
    YOUTUBE_KEY_ENV,
    McpServerStartError,
    child_environment,
    server_command,
    start_bundled_server,
)
from tests.fakes.mcp_fixture import bundled_mcp, server_env  # noqa: F401

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def busy_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


# -- the child's environment and command --------------------------------------------------


def test_the_key_variable_names_match_the_key_store():
    assert ENV_VARS[YOUTUBE_KEY] == YOUTUBE_KEY_ENV and ENV_VARS[LLM_KEY] == LLM_KEY_ENV


def test_a_frozen_parents_library_paths_are_restored_for_the_child():
    env = child_environment({
        "LD_LIBRARY_PATH": "/app/_internal:/opt/lib", "LD_LIBRARY_PATH_ORIG": "/opt/lib",
        "DYLD_LIBRARY_PATH": "/app/_internal", "_MEIPASS2": "/tmp/_MEI1", "_PYI_X": "1",
        "PATH": "/usr/bin",
    }, frozen=True)
    assert env["LD_LIBRARY_PATH"] == "/opt/lib" and "LD_LIBRARY_PATH_ORIG" not in env
    assert "DYLD_LIBRARY_PATH" not in env
    assert "_MEIPASS2" not in env and "_PYI_X" not in env
    assert env["PYINSTALLER_RESET_ENVIRONMENT"] == "1" and env["PATH"] == "/usr/bin"


def test_an_unfrozen_parents_environment_is_kept():
    env = child_environment({"LD_LIBRARY_PATH": "/opt/lib"}, frozen=False)
    assert env["LD_LIBRARY_PATH"] == "/opt/lib" and "PYINSTALLER_RESET_ENVIRONMENT" not in env


def test_the_child_gets_the_youtube_key_but_never_the_model_key():
    env = child_environment({LLM_KEY_ENV: "sk-model"}, youtube_key="yt-key", frozen=False)
    assert LLM_KEY_ENV not in env and env[YOUTUBE_KEY_ENV] == "yt-key"


def test_the_command_runs_the_package_or_the_frozen_app(monkeypatch):
    serve = ["serve-mcp", "--host", "127.0.0.1", "--port", "8081", "--until-stdin-closes"]
    assert server_command("127.0.0.1", 8081)[1:] == ["-m", "roundtable_desktop", *serve]
    monkeypatch.setattr("sys.frozen", True, raising=False)
    assert server_command("127.0.0.1", 8081)[1:] == serve


# -- starting and stopping ----------------------------------------------------------------


def test_port_in_use_is_one_clear_line_from_the_cli(busy_port, capsys):
    assert main(["serve-mcp", "--port", str(busy_port)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"roundtable: Port {busy_port} on 127.0.0.1 is in use: another program "
                   "(perhaps another roundtable serve-mcp) listens there; stop it or choose "
                   "another port with --port.")


def test_port_in_use_stops_start_bundled_server_with_the_reason(busy_port):
    with pytest.raises(McpServerStartError) as caught:
        start_bundled_server(busy_port, env=server_env())
    assert str(caught.value).startswith("The bundled MCP server did not start: roundtable: "
                                        f"Port {busy_port} on 127.0.0.1 is in use")


def test_stop_ends_the_process_and_is_safe_twice():
    server = start_bundled_server(0, env=server_env())
    server.stop()
    server.stop()
    assert not server.running() and not server.log_path.exists()


def test_the_server_exits_by_itself_when_its_parent_goes_away():
    server = start_bundled_server(0, env=server_env())
    try:
        server.process.stdin.close()  # what the OS does when the app dies, even by a crash
        assert server.process.wait(timeout=10) is not None
    finally:
        server.stop()


# -- DNS-rebinding protection -------------------------------------------------------------


def test_a_foreign_host_header_is_refused(bundled_mcp):  # noqa: F811
    port = bundled_mcp.url.split(":")[2].split("/")[0]
    response = httpx.post(bundled_mcp.url, json=PING, trust_env=False,
                          headers={**MCP_HEADERS, "Host": f"evil.example:{port}"})
    assert response.status_code == 421


def test_a_foreign_origin_is_refused(bundled_mcp):  # noqa: F811
    response = httpx.post(bundled_mcp.url, json=PING, trust_env=False,
                          headers={**MCP_HEADERS, "Origin": "http://evil.example"})
    assert response.status_code == 403
