"""Redactor and workflow-command neutralisation."""

from __future__ import annotations

from agentci.reports.redact import Redactor, neutralise_workflow_commands, secret_names

ENV = {
    "GEMINI_API_KEY": "AIzaSyD-canary-value-1234567890abcdefgh",
    "MY_TOKEN": "tok@canary-98765",
    "DB_PASSWORD": "hunter2-long",
    "SHORT_SECRET": "abc",
    "GIT_AUTHOR_NAME": "Someone Public",
    "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "PLAIN": "not-a-secret-value",
    "CUSTOM": "custom-secret-value",
    "MULTI_PRIVATE": "line-one-secret\nline-two-secret",
}


def test_secret_names() -> None:
    names = secret_names(ENV, extra_names=["CUSTOM"])
    assert names == [
        "CUSTOM",
        "DB_PASSWORD",
        "GEMINI_API_KEY",
        "MULTI_PRIVATE",
        "MY_TOKEN",
        "SHORT_SECRET",
    ]


def test_env_values_redacted() -> None:
    r = Redactor.from_environ(extra_names=["CUSTOM"], environ=ENV)
    text = (
        "key=AIzaSyD-canary-value-1234567890abcdefgh tok@canary-98765 hunter2-long abc "
        "custom-secret-value not-a-secret-value Someone Public line-two-secret "
        "https://x/?t=tok%40canary-98765"
    )
    out = r.redact(text)
    for secret in ("canary", "hunter2", "custom-secret", "line-two"):
        assert secret not in out
    assert "abc" in out  # short values are not used
    assert "not-a-secret-value" in out and "Someone Public" in out
    assert out.count("***") >= 6


def test_shapes() -> None:
    r = Redactor()
    samples = [
        "ghp_" + "a1B2" * 9,
        "ghs_" + "Z" * 36,
        "github_pat_" + "11ABCDEFG0_" + "x" * 40,
        "AIza" + "S" * 35,
        "AKIAIOSFODNN7EXAMPLE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "xoxb-123456789012-abcdefghij",
        "sk-ant-" + "q" * 30,
    ]
    for s in samples:
        assert r.redact(f"x {s} y") == "x *** y", s
    pem = (
        "before\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----\nafter"
    )
    assert r.redact(pem) == "before\n***\nafter"
    truncated = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow..."
    assert r.redact(truncated) == "***"
    assert r.redact("git clone https://bob:s3cr3tpass@github.com/x.git") == (
        "git clone https://bob:***@github.com/x.git"
    )
    assert r.redact("Authorization: Bearer abcdef123456") == "Authorization: Bearer ***"
    cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"
    assert r.redact(cert) == cert  # public material stays


def test_redact_obj() -> None:
    r = Redactor(["supersecret"])
    obj = {"a": ["x supersecret", 1, None, {"supersecret": ("supersecret",)}], "n": 2.5}
    assert r.redact_obj(obj) == {"a": ["x ***", 1, None, {"***": ["***"]}], "n": 2.5}


def test_every_one_of_many_secrets_is_masked() -> None:
    r = Redactor([f"secret-value-{i:04d}" for i in range(300)])
    text = "first secret-value-0000\n" + ("ordinary log line\n" * 2000) + "secret-value-0299"
    out = r.redact(text)
    assert out.startswith("first ***\n")
    assert out.endswith("\n***")
    assert "secret-value" not in out


def test_neutralise_workflow_commands() -> None:
    raw = (
        "::add-mask::x\n  ::stop-commands::tok\n::set-output name=a::b\nok :: fine\n"
        "##[error]boom\r::warning::cr\n\x1b[31mred\x1b[0m \x1b]0;title\x07 bell\x07 nul\x00!"
    )
    out = neutralise_workflow_commands(raw)
    for line in out.splitlines():
        assert not line.lstrip().startswith(("::", "##[")), line
    assert ": :add-mask::x" in out and "ok :: fine" in out
    assert "\x1b" not in out and "\x07" not in out and "\x00" not in out
    assert "red  bell nul!" in out


def test_a_long_line_is_redacted_in_linear_time() -> None:
    """A 1 MB line of URL-ish characters took minutes (a ``scheme://`` alternative rescanned
    the rest of the line from every position); it must now finish well inside 20 s."""
    import subprocess
    import sys

    code = (
        "from agentci.reports.redact import Redactor\n"
        "r = Redactor(['s3cr3t-value'])\n"
        "for line in ('a' * 1_000_000, 'eyJ-' * 250_000, 'ab.' * 300_000 + ':x'):\n"
        "    assert r.redact(line) == line\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert done.stdout == "ok\n", done.stderr


def test_encoded_forms_of_a_secret_are_redacted() -> None:
    import base64

    secret = "tok-3f9a0c7e1d"
    r = Redactor([secret])
    for prefix in ("", "a", "ab"):  # every offset inside base64's 3-byte groups
        raw = f"{prefix}Authorization: {secret}\n".encode()
        for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            text = encoded.decode()
            out = r.redact(text)
            assert "***" in out and out != text, (prefix, text)
    assert r.redact(secret.encode().hex()) == "***"
    assert r.redact(secret.encode().hex().upper()) == "***"
    assert r.redact("plain text with nothing") == "plain text with nothing"


def test_patch_redaction_touches_added_lines_only() -> None:
    r = Redactor(["s3cr3t-value"])
    patch = (
        "diff --git a/c.py b/c.py\n"
        "index 1111111..2222222 100644\n"
        "--- a/c.py\n"
        "+++ b/c.py\n"
        "@@ -1,3 +1,3 @@\n"
        ' KEY = "AKIAIOSFODNN7EXAMPLE"\n'
        '-T = "s3cr3t-value"\n'
        '+T = "s3cr3t-value" + "AKIAIOSFODNN7EXAMPLE"\n'
        " end\n"
        "diff --git a/d.py b/d.py\n"
        "--- a/d.py\n"
        "+++ b/d.py\n"
        "@@ -1 +1 @@\n"
        "-x\n"
        "+y\n"
    )
    out, files = r.redact_patch(patch)
    assert files == ["c.py"]
    assert out == patch.replace(
        '+T = "s3cr3t-value" + "AKIAIOSFODNN7EXAMPLE"', '+T = "***" + "***"'
    )


def test_cookie_variables_are_secret_names_as_in_the_tools_environment() -> None:
    """policy/env.py keeps ``*COOKIE*`` variables from the tools; their values are masked too."""
    env = {"SESSION_COOKIE": "sid=canary-cookie-4242", "COOKIE_JAR_PATH": "/tmp/jar"}
    assert secret_names(env) == ["SESSION_COOKIE"]
    out = Redactor.from_environ(environ=env).redact("curl -b sid=canary-cookie-4242 x")
    assert out == "curl -b *** x"
