"""Secrets are redacted before anything is stored or printed: `deja.continue_store.redact`.

Fake secrets are assembled from pieces at run time, so no scanner mistakes this file for a leak.
"""

from __future__ import annotations

import importlib
import inspect
import json
import string
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from deja.continue_store.redact import redact

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"

# One fake secret of each shape.
SK_PROJ = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5q"
SK_ANT = "sk-" + "ant-api03-" + "Xy4zAb3dEf6hIj9kLm2nOp5qRs8tUv1w_Xy4zAb3dEf6hIj9kLm2nOp5q-AA"
SK_LEGACY = "sk-" + "T3BlbkFJ" + "aB1cD2eF3gH4iJ5kL6mN7oP8qR9sT0uV1wX2yZ3aB4c"
GHP = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GH_PAT = (
    "github" + "_pat_" + "11ABCDEFG0" + "123456789_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789" * 2
)
AWS = "AK" + "IA" + "Q3EGRS7T2JUVKX4Y"
AWS_SESSION = "AS" + "IA" + "Z7QW3ERTY4UIOP5A"
SLACK = "xo" + "xb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AI" + "za" + "SyD3x4mpl3K3yW1thThirtyF1veCh4rs0Q9"
JWT = (
    "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".ey" + "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
OPAQUE = "AbCdEf0123456789xyzXYZ"
PEM_BODY = (
    "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2bZQ1ZjXn8Oq0Ud3Fw5J1gq9nWm4\n"
    "Hw3bMdG7rZxXk0ZC2nP8Lr5Qe6J7tV0sKj9aYb4Rc8Fh2WmPq1sDx3eTn7Uo5Lk2\n"
    "Vq8Rz3Nw6Jm1Pt4Ys7Kx0Bc9Df2Gh5Ij8Lm1No4Pq7Rs0Tu3Vw6Xy9Za2Bc5De8==\n"
)
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "-----END RSA PRIVATE KEY-----"
PEM_LINES = PEM_BODY.splitlines()


def kept(text: str) -> None:
    assert redact(text) == text


# --- Each kind -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        (SK_PROJ, "api-key"),
        (SK_ANT, "api-key"),
        (SK_LEGACY, "api-key"),
        ("sk-" + "1234567890abcdef1234567890abcdef", "api-key"),
        (GHP, "github-token"),
        ("gh" + "o_" + GHP[4:], "github-token"),
        ("gh" + "u_" + GHP[4:], "github-token"),
        ("gh" + "s_" + GHP[4:], "github-token"),
        ("gh" + "r_" + GHP[4:], "github-token"),
        (GH_PAT, "github-token"),
        (AWS, "aws-key"),
        (AWS_SESSION, "aws-key"),
        ("AKIA" + "IOSFODNN7EXAMPLE", "aws-key"),
        (SLACK, "slack-token"),
        ("xo" + "xp-" + SLACK[5:], "slack-token"),
        ("xo" + "xa-" + SLACK[5:], "slack-token"),
        ("xo" + "xr-" + SLACK[5:], "slack-token"),
        ("xo" + "xs-" + SLACK[5:], "slack-token"),
        (GOOGLE, "google-key"),
        (JWT, "jwt"),
        (JWT.rsplit(".", 1)[0], "jwt"),  # cut before the signature
        ("sk" + "_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "api-key"),  # Stripe
        ("rk" + "_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "api-key"),
    ],
)
def test_shaped_secret_is_replaced_whole(secret: str, kind: str) -> None:
    assert redact(secret) == f"[redacted:{kind}]"
    assert redact(f"key: {secret}\n") == f"key: [redacted:{kind}]\n"
    assert redact(f"use ({secret}), then") == f"use ([redacted:{kind}]), then"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Authorization: Bearer {OPAQUE}", "Authorization: Bearer [redacted:bearer]"),
        (f"authorization: bearer {OPAQUE}", "authorization: bearer [redacted:bearer]"),
        (f"AUTHORIZATION: BEARER {OPAQUE}", "AUTHORIZATION: BEARER [redacted:bearer]"),
        (f"Bearer {OPAQUE}", "Bearer [redacted:bearer]"),
        (
            f"curl -H 'Authorization: Bearer {OPAQUE}' https://api.example.com/v1",
            "curl -H 'Authorization: Bearer [redacted:bearer]' https://api.example.com/v1",
        ),
        (
            '{"headers": {"Authorization": "Bearer ' + OPAQUE + '=="}}',
            '{"headers": {"Authorization": "Bearer [redacted:bearer]"}}',
        ),
        ("Bearer abc.def-123_456~789+0/1=", "Bearer [redacted:bearer]"),
        (f"Authorization: Bearer {JWT}", "Authorization: Bearer [redacted:jwt]"),
        (f"Authorization: Bearer {SK_PROJ}", "Authorization: Bearer [redacted:api-key]"),
        (
            "Authorization: Basic dXNlcjpwYXNzd29yZA==",
            "Authorization: Basic [redacted:basic-auth]",
        ),
        (
            "Authorization: Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
            "Authorization: Token [redacted:bearer]",
        ),
    ],
)
def test_bearer_keeps_the_word_and_redacts_the_token(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_private_key_block() -> None:
    assert redact(f"key:\n{PEM}\nnext line") == "key:\n[redacted:private-key]\nnext line"
    for label in ("", "EC ", "OPENSSH ", "ENCRYPTED ", "DSA "):
        block = PEM.replace("RSA ", label)
        assert redact(f"a\n{block}\nb") == "a\n[redacted:private-key]\nb"
    pgp = (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
        + PEM_BODY
        + "-----END PGP PRIVATE KEY BLOCK-----"
    )
    assert redact(pgp + "\nok") == "[redacted:private-key]\nok"
    encrypted = PEM.replace(
        "KEY-----\n", "KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12CD\n\n", 1
    )
    assert redact(encrypted) == "[redacted:private-key]"


def test_private_key_cut_off_is_redacted_to_the_end() -> None:
    head = PEM.split("-----END")[0][:-20]
    assert redact(f"cat id_rsa\n{head}") == "cat id_rsa\n[redacted:private-key]"
    assert redact(f"cat id_rsa\n{head}\n... 40 lines cut ...\nmore") == (
        "cat id_rsa\n[redacted:private-key]"
    )


def test_private_key_whose_header_was_cut_off() -> None:
    tail = "\n".join(PEM.splitlines()[2:])
    out = redact(f"...output cut...\n{tail}\nafter")
    assert out == "...output cut...\n[redacted:private-key]\nafter"


def test_private_key_inside_a_json_string() -> None:
    args = json.dumps({"path": "deploy/id_rsa", "content": PEM + "\n"})
    out = redact(args)
    assert json.loads(out) == {"path": "deploy/id_rsa", "content": "[redacted:private-key]\n"}
    assert not any(line in out for line in PEM_LINES)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "postgres://admin:s3cret@db.example.com:5432/app",
            "postgres://admin:[redacted:url-credentials]@db.example.com:5432/app",
        ),
        (
            "DATABASE_URL=mysql://root:p@ss:w0rd@localhost/shop",
            "DATABASE_URL=mysql://root:[redacted:url-credentials]@localhost/shop",
        ),
        ("redis://:hunter2@cache:6379/0", "redis://:[redacted:url-credentials]@cache:6379/0"),
        (
            "git clone https://bob:tok3n123@github.com/org/repo.git",
            "git clone https://bob:[redacted:url-credentials]@github.com/org/repo.git",
        ),
        (
            "mongodb+srv://app:Xy9%40z@cluster0.mongodb.net/?retryWrites=true",
            "mongodb+srv://app:[redacted:url-credentials]@cluster0.mongodb.net/?retryWrites=true",
        ),
    ],
)
def test_url_credentials_keep_scheme_user_and_host(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # env files and shell
        ("password=hunter2", "password=[redacted:password]"),
        ("DB_PASSWORD=hunter2\n", "DB_PASSWORD=[redacted:password]\n"),
        ("export API_KEY=abcdef123456", "export API_KEY=[redacted:secret]"),
        ("export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=[redacted:token]"),
        ("MYSQL_PWD=s3cr3t mysql -u root", "MYSQL_PWD=[redacted:password] mysql -u root"),
        ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY=[redacted:secret]"),
        ('SECRET_KEY="django-insecure-abc123"', 'SECRET_KEY="[redacted:secret]"'),
        ("docker run -e API_KEY=abcdef123456 app", "docker run -e API_KEY=[redacted:secret] app"),
        ("set PASSWORD=hunter2", "set PASSWORD=[redacted:password]"),
        # YAML, HTTP headers, config
        (
            "db:\n  password: hunter2\n  user: app\n",
            "db:\n  password: [redacted:password]\n  user: app\n",
        ),
        ("PASSWORD: hunter2", "PASSWORD: [redacted:password]"),
        ("  - api_key: abcdef123456  # prod\n", "  - api_key: [redacted:secret]  # prod\n"),
        ("X-Api-Key: abcdef1234567", "X-Api-Key: [redacted:secret]"),
        ('curl -H "X-Auth-Token: abcdef1234567" x', 'curl -H "X-Auth-Token: [redacted:token]" x'),
        ('password: "hunter2"', 'password: "[redacted:password]"'),
        # JSON and code literals
        ('{"password": "hunter2"}', '{"password": "[redacted:password]"}'),
        ('{"client_secret":"abcdefghijkl"}', '{"client_secret":"[redacted:secret]"}'),
        ("{'access_token': 'abcdefgh1234'}", "{'access_token': '[redacted:token]'}"),
        ("client_secret = 'abcdefghijklmnop'", "client_secret = '[redacted:secret]'"),
        ('token: str = "abcdefgh1234"', 'token: str = "[redacted:token]"'),
        ('const apiKey = "abcdef123456";', 'const apiKey = "[redacted:secret]";'),
        ('accessToken := "abcdef123456"', 'accessToken := "[redacted:token]"'),
        ("'password' => 'hunter2',", "'password' => '[redacted:password]',"),
        (
            'login(user="bob", password="hunter2")',
            'login(user="bob", password="[redacted:password]")',
        ),
        ('password = "it\'s \\"quoted\\""', 'password = "[redacted:password]"'),
        ("password = s3cr3t!", "password = [redacted:password]"),
        ("[client]\npassword = hunter2\n", "[client]\npassword = [redacted:password]\n"),
        ("spring.datasource.password=s3cret", "spring.datasource.password=[redacted:password]"),
        (
            "CREATE USER bob WITH PASSWORD 'hunter2';",
            "CREATE USER bob WITH PASSWORD '[redacted:password]';",
        ),
        ('the password "hunter2" is wrong', 'the password "[redacted:password]" is wrong'),
        ("password = pypi-AgEIcHlwaS5vcmc", "password = [redacted:password]"),
        # command lines, URLs, connection strings
        ("mysql --password hunter2 --user x", "mysql --password [redacted:password] --user x"),
        ("gh auth --with-token 'abcdefgh1234'", "gh auth --with-token '[redacted:token]'"),
        ("tool --api-key=abcdef123456", "tool --api-key=[redacted:secret]"),
        (
            "GET /cb?code=x&access_token=abcdefgh1234&state=y",
            "GET /cb?code=x&access_token=[redacted:token]&state=y",
        ),
        (
            "Server=db;User Id=sa;Password=Sup3r;Encrypt=true",
            "Server=db;User Id=sa;Password=[redacted:password];Encrypt=true",
        ),
    ],
)
def test_assignment_keeps_the_key_and_redacts_the_value(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_a_token_in_a_key_value_keeps_its_own_kind() -> None:
    assert redact(f'client = OpenAI(api_key="{SK_PROJ}")') == (
        'client = OpenAI(api_key="[redacted:api-key]")'
    )
    assert redact(f"ACCESS_KEY={AWS}\nSECRET={JWT}") == (
        "ACCESS_KEY=[redacted:aws-key]\nSECRET=[redacted:jwt]"
    )


def test_in_a_message() -> None:
    message = (
        f"I set OPENAI_API_KEY to {SK_PROJ} and the DB url to "
        "postgres://app:pa55word@db:5432/x but it still fails. Any idea?"
    )
    assert redact(message) == (
        "I set OPENAI_API_KEY to [redacted:api-key] and the DB url to "
        "postgres://app:[redacted:url-credentials]@db:5432/x but it still fails. Any idea?"
    )


def test_in_tool_arguments_json() -> None:
    args = json.dumps(
        {
            "command": f"export GITHUB_TOKEN={GHP} && gh pr list",
            "env": {"AWS_ACCESS_KEY_ID": AWS, "password": "hunter2", "SLACK": SLACK},
            "file": json.dumps({"api_key": "abcdef123456", "model": "gpt"}),
        }
    )
    out = redact(args)
    assert json.loads(out) == {
        "command": "export GITHUB_TOKEN=[redacted:github-token] && gh pr list",
        "env": {
            "AWS_ACCESS_KEY_ID": "[redacted:aws-key]",
            "password": "[redacted:password]",
            "SLACK": "[redacted:slack-token]",
        },
        "file": json.dumps({"api_key": "[redacted:secret]", "model": "gpt"}),
    }


def test_in_shell_output() -> None:
    output = (
        "$ env | sort\n"
        "HOME=/home/me\n"
        "OLDPWD=/tmp\n"
        f"OPENAI_API_KEY={SK_LEGACY}\n"
        "PGPASSWORD=hunter2\n"
        "PWD=/home/me/src\n"
        "SHELL=/bin/bash\n"
        "$ cat ~/.aws/credentials\n"
        "[default]\n"
        f"aws_access_key_id = {AWS}\n"
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
    )
    assert redact(output) == (
        "$ env | sort\n"
        "HOME=/home/me\n"
        "OLDPWD=/tmp\n"
        "OPENAI_API_KEY=[redacted:api-key]\n"
        "PGPASSWORD=[redacted:password]\n"
        "PWD=/home/me/src\n"
        "SHELL=/bin/bash\n"
        "$ cat ~/.aws/credentials\n"
        "[default]\n"
        "aws_access_key_id = [redacted:aws-key]\n"
        "aws_secret_access_key = [redacted:secret]\n"
    )


def test_many_secrets_in_one_text() -> None:
    secrets = [SK_PROJ, GHP, AWS, SLACK, GOOGLE, JWT, GH_PAT, SK_ANT]
    text = "\n".join(f"{i}: {s}" for i, s in enumerate(secrets)) + f"\nBearer {OPAQUE}\n{PEM}"
    out = redact(text)
    for secret in [*secrets, OPAQUE, *PEM_LINES]:
        assert secret not in out
    assert out.count("[redacted:") == len(secrets) + 2
    assert out.startswith(
        "0: [redacted:api-key]\n1: [redacted:github-token]\n2: [redacted:aws-key]"
    )


# --- What is not a secret ------------------------------------------------------------------------

ORDINARY = [
    # near misses of the shaped kinds
    "pip install scikit-learn  # sk-learn",
    "the .sk-folding-cube-animation-wrapper class",
    "task-abcdefghijklmnopqrstuvwxyz0123",
    "ghp_short and gho_ and github_pat_",
    "the AKIA prefix, ASIA is a continent, AKIA123",
    "xoxb-not-a-real-token-here",
    "AIza is a prefix",
    "eyJhbGci is how base64 JSON starts",
    "a Bearer token goes in the header; use Bearer authentication.",
    "the bearer of bad news",
    'headers = {"Authorization": f"Bearer {token}"}',
    'headers["Authorization"] = "Bearer " + token',
    "Authorization: Bearer $TOKEN",
    "Authorization: Bearer <your-token>",
    "Authorization: Bearer YOUR_ACCESS_TOKEN",
    'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):',
    'END = "-----END PRIVATE KEY-----"',
    # code that handles credentials
    "tokenizer = AutoTokenizer.from_pretrained(model_name)",
    "tokens = tokenizer(text)\ntoken = tokens[0]\nmax_tokens=1024",
    "t = get_token()\nh = password_hash(pw)\npassword_reset_url = '/reset'",
    "token_type = 'bearer'\ntoken_url = 'https://oauth2.example.com/token'",
    "def login(username: str, password: str) -> Token:",
    "class Settings:\n    password: str\n    api_key: SecretStr\n    token: Optional[str] = None\n",
    "interface Auth {\n  password: string;\n  accessToken?: string;\n}",
    "client = Client(api_key=api_key, token=token)\nf(password=pw, secret=s)",
    "self.api_key = api_key\npassword = pw\ntoken = tok\nconst password = userInput;",
    "api_key = os.environ['OPENAI_API_KEY']\ntoken = os.getenv('GITHUB_TOKEN')",
    "const token = process.env.GITHUB_TOKEN;",
    "secret = secrets.token_hex(16)\nSECRET_KEY = get_random_secret_key()",
    "password = getpass.getpass('Password: ')\nprint('token:', tok)",
    'prompt = "Enter password: "\nlog("token=%s", token)\nmsg = "password=" + pw',
    "if token == '' or password != confirm:",
    "SELECT id FROM users WHERE password = :pw OR password = @pw OR password = ?",
    "token := lexer.Next()",
    '{"password": password, "token": null, "secret": true}',
    '{"max_tokens": 1024, "input_tokens": 12}',
    '{"token": "hello", "logprob": -0.5}',
    "for (token = strtok(buf); token; token = *next++)",
    # placeholders
    "password=\ntoken=${TOKEN}\nexport GITHUB_TOKEN=$GH_TOKEN\nAPI_KEY=%API_KEY%",
    "password: ${{ secrets.DB_PASSWORD }}\ntoken: <your-token>\napi_key: '***'",
    "--password PASSWORD  the password to use\n--token TOKEN",
    'password: "your-password-here"\nAPI_KEY=your_api_key_here\ntoken: "xxxxxxxx"',
    "OPENAI_API_KEY=sk-...\npassword: ********",
    "postgres://user:password@localhost/db\nhttps://user:${PASS}@host",
    # prose and shell output
    "The secret: never commit .env files. The token is sent by the client.",
    "Password: see the vault. Token:",
    "PWD=/home/me\nOLDPWD=/tmp\n$ pwd\n/home/me",
    "-rw-r--r-- 1 root root 4096 Jan  1 00:00 .secret_key\ndrwxr-xr-x  token-cache/",
    "https://github.com/org/repo\ngit@github.com:org/repo.git\nssh://git@host:22/x",
    "mail me at user@example.com or admin:ops@example.com",
    "http://localhost:8080/path?next=/a@b",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_unchanged(text: str) -> None:
    kept(text)


@pytest.mark.parametrize(
    "module",
    ["tokenize", "secrets", "getpass", "hmac", "netrc", "smtplib", "ssl", "http.cookies", "json"],
)
def test_standard_library_source_is_unchanged(module: str) -> None:
    """Real code about tokens, passwords and secrets, with no secret in it."""
    kept(inspect.getsource(importlib.import_module(module)))


# --- Idempotence and robustness -----------------------------------------------------------------

SAMPLES = [
    SK_PROJ,
    GHP,
    AWS,
    SLACK,
    GOOGLE,
    JWT,
    PEM,
    f"Bearer {OPAQUE}",
    "password=hunter2",
    '{"api_key": "abcdef123456"}',
    "postgres://a:b@c/d",
    PEM.split("-----END")[0],
    "\n".join(PEM.splitlines()[1:]),
]


@pytest.mark.parametrize("text", SAMPLES + ORDINARY)
def test_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@pytest.mark.parametrize(
    "text",
    [
        "password=" + "a" * 200_000,
        "password = " + "a." * 100_000,
        '"password": "' + "\\a" * 100_000,
        "sk-" * 100_000,
        "Bearer " * 50_000,
        "xoxb-1" * 50_000,
        "eyJ" + "a" * 10 + (".eyJ" + "a" * 10) * 20_000,
        "-----BEGIN PRIVATE KEY-----\n" + "A" * 64 + "\n" + "-----BEGIN " * 10_000,
        ("-----BEGIN PRIVATE KEY-----\n" + "A" * 64 + "\n") * 2_000,
        ("A" * 64 + "\n") * 2_000 + "-----END PRIVATE KEY-----\n" * 2_000,
        "http://" + "a:" * 100_000 + "@",
        "token: " + "x" * 200_000,
        "--token " * 50_000,
        "password=" * 20_000,
        "x token:" + "token:" * 30_000,
        "x token: '" + "token=" * 30_000,
        '"secret": "\\' + 'secret=\\"' * 20_000,
        "apiKey " * 30_000,
    ],
    ids=lambda text: repr(text[:16]),
)
def test_linear_time_on_pathological_input(text: str) -> None:
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 2.0


# --- Properties ----------------------------------------------------------------------------------

any_text = st.text(st.characters(), max_size=300)  # includes lone surrogates and NUL
FRAGMENTS = [
    "password", "PASSWORD", "token", "Token", "secret", "api_key", "apiKey", "pwd", "PWD",
    "Bearer ", "bearer", "Authorization: ", "sk-", "ghp_", "github_pat_", "AKIA", "AIza", "xoxb-",
    "eyJ", ".", "=", ": ", ":", '"', "'", "`", "\\", '\\"', "--", "-", "_", "$", "{", "}", "(", ")",
    "[", "]", ",", ";", "&", "@", "://", "\n", "\\n", " ", "\t", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "[redacted:token]", "A1b2C3d4E5f6G7h8", "0123456789abcdef",
    "hunter2", "\x00", "\ud800", "é", "😀", "İ",
]  # fmt: skip
tricky_text = st.lists(st.sampled_from(FRAGMENTS) | any_text, max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_never_raises_and_is_idempotent_on_any_text(text: str) -> None:
    once = redact(text)
    assert isinstance(once, str)
    assert redact(once) == once


@settings(max_examples=1500, deadline=None)
@given(tricky_text)
def test_idempotent_on_secret_like_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def _chars(alphabet: str, size: int) -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(alphabet), min_size=size, max_size=size)


def _with_digit(body: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(body, st.sampled_from(string.digits)).map(lambda t: t[1] + t[0])


def _b64url(lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(URLSAFE), min_size=lo, max_size=hi)


# (the text to embed, the secret part that must not survive)
Embedded = tuple[str, str]


def _same(secret: str) -> Embedded:
    return (secret, secret)


def _plain_value() -> st.SearchStrategy[str]:
    """Passwords and keys as people pick them: no whitespace, quotes or delimiters."""
    symbols = "!#*+-./:=?@^_~"
    return st.tuples(
        st.text(st.sampled_from(ALNUM + symbols), min_size=7, max_size=40),
        st.sampled_from(string.digits),
        st.sampled_from(string.ascii_letters),
    ).map(lambda t: t[2] + t[1] + t[0])


shaped_secret: st.SearchStrategy[str] = st.one_of(
    st.builds(
        lambda p, b: "sk-" + p + b,
        st.sampled_from(["", "proj-", "ant-api03-", "svcacct-"]),
        _with_digit(_b64url(19, 160)),
    ),
    st.builds(
        lambda p, b: "gh" + p + "_" + b,
        st.sampled_from("pousr"),
        _with_digit(_chars(ALNUM, 35)),
    ),
    st.builds(lambda b: "github" + "_pat_" + b, _with_digit(_chars(ALNUM + "_", 81))),
    st.builds(
        lambda p, b: p + b,
        st.sampled_from(["AK" + "IA", "AS" + "IA"]),
        _chars(string.ascii_uppercase + string.digits, 16),
    ),
    st.builds(
        lambda t, a, b, c: "xo" + "x" + t + "-" + a + "-" + b + "-" + c,
        st.sampled_from("baprs"),
        _chars(string.digits, 12),
        _chars(string.digits, 13),
        _chars(ALNUM, 24),
    ),
    st.builds(lambda b: "AI" + "za" + b, _chars(URLSAFE, 35)),
    st.builds(
        lambda h, p, s: "ey" + "J" + h + ".ey" + "J" + p + "." + s,
        _b64url(8, 60),
        _b64url(8, 200),
        _b64url(1, 86),
    ),
    st.builds(
        lambda p, b: p + b,
        st.sampled_from(["sk" + "_live_", "rk" + "_live_", "sk" + "_test_"]),
        _with_digit(_chars(ALNUM, 24)),
    ),
)
embedded_secret: st.SearchStrategy[Embedded] = st.one_of(
    shaped_secret.map(_same),
    st.builds(
        lambda h, t: (f"{h}Bearer {t}", t),
        st.sampled_from(["", "Authorization: ", "authorization: bearer ", "-H 'Authorization: "]),
        _with_digit(_chars(ALNUM + "-._~+/", 20)),
    ),
    st.builds(lambda t: (f"Authorization: Basic {t}", t), _with_digit(_chars(ALNUM + "+/", 24))),
    st.builds(
        lambda lines, end: ("-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + end, lines[0]),
        st.lists(_chars(ALNUM + "+/", 64), min_size=1, max_size=5),
        st.sampled_from(["\n-----END PRIVATE KEY-----", ""]),
    ),
    st.builds(
        lambda s, u, pw, h: (f"{s}://{u}:{pw}@{h}/db", pw),
        st.sampled_from(["postgres", "https", "redis", "mongodb+srv"]),
        st.sampled_from(["", "admin", "app_user"]),
        _with_digit(_chars(ALNUM + "!*-._~%", 12)),
        st.sampled_from(["db", "db.example.com:5432", "10.0.0.1"]),
    ),
    st.builds(
        lambda form, key, v: (form.format(key=key, v=v), v),
        st.sampled_from(
            [
                "{key}={v}",
                "export {key}={v}",
                '{key}="{v}"',
                "{key} = '{v}'",
                '"{key}": "{v}"',
                '{{\\"{key}\\": \\"{v}\\"}}',
                "\n{key}: {v}\n",
                "--{key} {v}",
                "--{key}={v}",
                "WITH {key} '{v}'",
            ]
        ),
        st.sampled_from(
            [
                "password",
                "DB_PASSWORD",
                "passwd",
                "api_key",
                "API_KEY",
                "apiKey",
                "client_secret",
                "SECRET_KEY",
                "access_token",
                "GITHUB_TOKEN",
                "db-password",
                "x-api-key",
            ]
        ),
        _plain_value(),
    ),
)
separator = st.sampled_from([" ", "\n", "\t", "\n\n", " \n"])
punctuation = st.sampled_from([*" \n\t\"'`()[]{}<>,;:=/|", "\\n", '\\"', "&amp;"])


@settings(max_examples=1500, deadline=None)
@given(any_text, separator, embedded_secret, separator, any_text)
def test_embedded_secret_never_survives(
    before: str, sep1: str, embedded: Embedded, sep2: str, after: str
) -> None:
    text, secret = embedded
    assume(secret not in before and secret not in after)
    out = redact(before + sep1 + text + sep2 + after)
    assert secret not in out
    assert "[redacted:" in out
    assert redact(out) == out


@settings(max_examples=1000, deadline=None)
@given(any_text, punctuation, shaped_secret, punctuation, any_text)
def test_shaped_secret_survives_no_punctuation_around_it(
    before: str, sep1: str, secret: str, sep2: str, after: str
) -> None:
    assume(secret not in before and secret not in after)
    out = redact(before + sep1 + secret + sep2 + after)
    assert secret not in out
    assert redact(out) == out
