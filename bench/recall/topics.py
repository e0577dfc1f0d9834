"""The recall set's topics: what one session did, in its own words, and questions about it —
two in other words (paraphrase, synonyms, "the thing we did about X") and one with the
session's own words (the control). Hand-written; `store.py` turns them into sessions."""

from __future__ import annotations

from typing import NamedTuple


class Topic(NamedTuple):
    slug: str
    request: str
    reply: str
    paraphrases: tuple[str, str]
    exact: str


TOPICS: tuple[Topic, ...] = (
    Topic(
        "memoize-token",
        "Every request hits the auth server to resolve the bearer token, it is slow.",
        "I memoized the token lookup with an LRU keyed by token hash, entries expire after "
        "five minutes so revoked credentials stop working quickly.",
        (
            "where did we decide how to cache sessions",
            "avoid calling the login service on each call",
        ),
        "memoized token lookup LRU",
    ),
    Topic(
        "flaky-ci",
        "The integration suite fails randomly on the build machines about one run in ten.",
        "The intermittent failures came from tests sharing a temp directory; each test now gets "
        "its own tmp_path and the port is picked by the OS instead of hard-coded 8080.",
        ("why were the pipeline checks unreliable", "nondeterministic test breakage fix"),
        "tests sharing a temp directory tmp_path",
    ),
    Topic(
        "dark-mode",
        "Users want the settings page to follow the operating system theme.",
        "Added a prefers-color-scheme media query and CSS variables for background and text "
        "colours; the toggle stores its choice in localStorage.",
        ("night theme for the preferences screen", "how did we make the UI colours switch at dusk"),
        "prefers-color-scheme media query localStorage",
    ),
    Topic(
        "n-plus-one",
        "Loading the orders list runs hundreds of SQL statements.",
        "Each order fetched its customer row separately; I switched to selectinload on the "
        "customer relationship so SQLAlchemy issues two statements in total.",
        ("the page that made too many database queries", "eager loading for the purchase listing"),
        "selectinload customer relationship",
    ),
    Topic(
        "rate-limit",
        "Someone is hammering the public API and the service falls over.",
        "Put a token bucket per client IP in front of the handlers: 100 requests per minute, "
        "a 429 with Retry-After when the bucket is empty.",
        ("throttling abusive callers", "how do we stop one user flooding the endpoints"),
        "token bucket per client IP 429 Retry-After",
    ),
    Topic(
        "utc-times",
        "Timestamps in the report are off by an hour after the clocks changed.",
        "Stored everything as timezone-aware UTC datetimes and convert to the viewer's zone only "
        "when rendering; naive datetime.now() calls were replaced by datetime.now(timezone.utc).",
        ("daylight saving bug in dates", "the clock shift problem in the summaries"),
        "timezone-aware UTC datetime.now(timezone.utc)",
    ),
    Topic(
        "memory-leak",
        "The worker's resident memory grows until the container is killed.",
        "The leak was an unbounded dict of callbacks registered per job and never removed; "
        "replaced it with a WeakValueDictionary and confirmed with tracemalloc snapshots.",
        ("process RAM kept climbing until OOM", "what was eating memory in the background job"),
        "WeakValueDictionary tracemalloc callbacks",
    ),
    Topic(
        "retry-backoff",
        "Calls to the payment provider sometimes time out and the order is lost.",
        "Wrapped the charge call in retries with exponential backoff and jitter, at most four "
        "attempts, and made it idempotent with an idempotency key header.",
        (
            "transient errors from the billing vendor",
            "what we did so a failed charge is tried again",
        ),
        "exponential backoff jitter idempotency key",
    ),
    Topic(
        "docker-slim",
        "Our container image is 2 GB and deploys take forever.",
        "Moved to a multi-stage Dockerfile: build wheels in a builder stage, copy them into "
        "python:3.12-slim, and added a .dockerignore for node_modules and .git.",
        ("shrink the deployment artifact size", "making the image smaller"),
        "multi-stage Dockerfile python:3.12-slim dockerignore",
    ),
    Topic(
        "csv-encoding",
        "Importing the spreadsheet export crashes with UnicodeDecodeError.",
        "The file is Windows-1252 with a BOM sometimes; the importer now sniffs the encoding with "
        "charset detection and falls back to cp1252, stripping the BOM first.",
        ("weird characters break the upload of tabular files", "accented letters in the import"),
        "UnicodeDecodeError cp1252 BOM",
    ),
    Topic(
        "feature-flags",
        "We need to ship the new checkout to a few customers only.",
        "Introduced a flags table with percentage rollout and an allowlist of account ids; the "
        "checkout route reads the flag through a small is_enabled helper.",
        ("gradual release to some users", "toggle to turn on the new payment flow for a subset"),
        "percentage rollout allowlist is_enabled",
    ),
    Topic(
        "websocket-reconnect",
        "The live dashboard stops updating after the laptop sleeps.",
        "The socket closes silently; the client now sends a heartbeat ping every 20 seconds and "
        "reconnects with backoff when a pong does not come back.",
        ("realtime panel freezes after standby", "keep the push connection alive"),
        "heartbeat ping pong reconnects",
    ),
    Topic(
        "pagination-cursor",
        "Scrolling deep into the activity feed gets slower and slower.",
        "OFFSET pagination scans every skipped row; switched to keyset pagination on "
        "(created_at, id) and the API returns an opaque cursor instead of a page number.",
        ("endless scroll becomes sluggish on later pages", "how we page through the timeline now"),
        "keyset pagination opaque cursor",
    ),
    Topic(
        "password-hash",
        "Security review says our password storage is weak.",
        "Replaced salted SHA-256 with argon2id via argon2-cffi; old hashes are upgraded on the "
        "next successful login.",
        ("stronger storage of user secrets", "what we changed after the audit about credentials"),
        "argon2id argon2-cffi salted SHA-256",
    ),
    Topic(
        "search-debounce",
        "The search box sends a request on every keystroke.",
        "Debounced the input by 250 ms and cancel the previous fetch with an AbortController so "
        "stale responses cannot overwrite newer ones.",
        ("too many lookups while typing", "the query field spamming the backend"),
        "debounced AbortController stale responses",
    ),
    Topic(
        "migration-lock",
        "A schema migration locked the users table in production for ten minutes.",
        "Adding the column with a default rewrote the table; now the migration adds it nullable, "
        "backfills in batches of 10k, then sets NOT NULL, and uses CREATE INDEX CONCURRENTLY.",
        ("database change froze the site", "how to alter big tables without downtime"),
        "backfills in batches CREATE INDEX CONCURRENTLY",
    ),
    Topic(
        "log-json",
        "Our logs are impossible to query in the aggregator.",
        "Switched to structured logging: structlog renders JSON lines with request_id, user_id "
        "and duration fields, and the level comes from LOG_LEVEL.",
        ("make the output machine readable for the log platform", "fields in every log line"),
        "structlog JSON lines request_id",
    ),
    Topic(
        "cors",
        "The browser blocks calls from the new frontend domain.",
        "Configured CORS middleware to allow the app origin explicitly with credentials, instead "
        "of a wildcard, and answer preflight OPTIONS requests.",
        (
            "cross-origin requests refused by chrome",
            "the front end could not reach the server from another host",
        ),
        "CORS middleware preflight OPTIONS wildcard",
    ),
    Topic(
        "email-queue",
        "Sign-up takes eight seconds because it sends the welcome mail inline.",
        "Moved email sending to a Celery task on a separate queue with retries; the view returns "
        "immediately after enqueueing.",
        ("registration is slow because of mail", "send messages in the background instead"),
        "Celery task separate queue enqueueing",
    ),
    Topic(
        "image-resize",
        "Uploaded photos are huge and the gallery loads slowly.",
        "Thumbnails are generated with Pillow at 320 and 1024 pixels wide, stored as WebP, and "
        "served with srcset so phones get the small one.",
        ("pictures take ages to show in the album", "smaller versions of uploaded pictures"),
        "Pillow thumbnails WebP srcset",
    ),
    Topic(
        "config-env",
        "Secrets are hard-coded in settings.py.",
        "Settings now come from environment variables through pydantic-settings with a .env file "
        "for local development; the repository has a .env.example and no real keys.",
        ("stop committing credentials in the code", "where configuration values come from now"),
        "pydantic-settings .env.example environment variables",
    ),
    Topic(
        "deadlock",
        "Two workers sometimes hang forever updating inventory.",
        "They locked rows in opposite order; both now lock products sorted by id, and the "
        "transaction has a lock_timeout so a stuck one fails fast.",
        ("the stock update jobs froze each other", "mutual waiting between transactions"),
        "locked rows in opposite order lock_timeout",
    ),
    Topic(
        "i18n",
        "We are launching in Germany and France.",
        "Extracted UI strings with gettext into .po catalogs, added de and fr translations, and "
        "the locale is negotiated from Accept-Language.",
        ("translating the app for other countries", "support for more languages"),
        "gettext po catalogs Accept-Language",
    ),
    Topic(
        "cache-invalidation",
        "Product pages show old prices after an edit.",
        "The Redis page cache was never cleared; the save hook now deletes the product's keys and "
        "bumps a version number included in the cache key.",
        ("stale values shown after updating an item", "prices not refreshing"),
        "Redis page cache bumps a version number",
    ),
    Topic(
        "type-hints",
        "Refactors keep breaking callers we did not notice.",
        "Added type annotations to the service layer and run mypy --strict in CI; the untyped "
        "third-party modules are listed in an ignore section.",
        ("static checking of function signatures", "catching interface mistakes before running"),
        "mypy --strict type annotations",
    ),
    Topic(
        "pdf-export",
        "Customers want invoices they can download.",
        "Invoices render from an HTML template to PDF with WeasyPrint; fonts are embedded and the "
        "file is streamed with Content-Disposition attachment.",
        ("printable bills for clients", "downloadable documents of purchases"),
        "WeasyPrint Content-Disposition attachment",
    ),
    Topic(
        "git-hooks",
        "People keep pushing code that fails formatting.",
        "Added a pre-commit config running ruff, ruff-format and a check for large files; CI runs "
        "pre-commit run --all-files too.",
        ("automatic style checks before saving work to the repo", "enforce formatting locally"),
        "pre-commit ruff-format --all-files",
    ),
    Topic(
        "healthcheck",
        "The load balancer sends traffic to instances that are still starting.",
        "Split the health endpoint into /livez and /readyz; readiness checks the database pool and "
        "migrations before returning 200.",
        ("traffic routed to servers not ready yet", "probe endpoints for the orchestrator"),
        "livez readyz readiness",
    ),
    Topic(
        "sql-injection",
        "A pentest found we build queries with string formatting.",
        "Every query in the reports module now uses bound parameters; the f-string SQL was "
        "replaced and a bandit rule fails the build if it comes back.",
        ("untrusted input reaching the database", "the security hole in the report filters"),
        "bound parameters f-string SQL bandit",
    ),
    Topic(
        "upload-limit",
        "Large video uploads fail with 413.",
        "Raised client_max_body_size in nginx to 2G and switched the upload to chunked multipart "
        "so a dropped connection resumes instead of starting over.",
        ("big files rejected by the proxy", "sending huge media to the server"),
        "client_max_body_size chunked multipart",
    ),
    Topic(
        "cron-drift",
        "The nightly report sometimes runs twice.",
        "Two replicas both ran the scheduler; the job now takes a Postgres advisory lock and "
        "skips if another instance holds it.",
        ("scheduled task executing more than once", "duplicate runs of the night job"),
        "advisory lock replicas scheduler",
    ),
    Topic(
        "bundle-size",
        "The frontend bundle is 4 MB and first load is slow.",
        "Enabled code splitting with dynamic import() per route, replaced moment with date-fns, "
        "and the analyzer shows 900 KB now.",
        ("the javascript the browser downloads is too heavy", "faster first page paint"),
        "code splitting dynamic import date-fns",
    ),
    Topic(
        "graceful-shutdown",
        "Deploys drop in-flight requests.",
        "The server now handles SIGTERM by closing the listener, waiting up to 30 seconds for "
        "open requests to finish, then exiting.",
        ("requests cut off while releasing a new version", "stopping the service cleanly"),
        "SIGTERM closing the listener in-flight",
    ),
    Topic(
        "float-money",
        "Totals are off by a cent sometimes.",
        "Money was stored as float; amounts are now integer cents in the database and Decimal with "
        "ROUND_HALF_EVEN in calculations.",
        ("rounding errors in prices", "penny discrepancy in sums"),
        "integer cents Decimal ROUND_HALF_EVEN",
    ),
    Topic(
        "accessibility",
        "Screen reader users cannot use the signup form.",
        "Added labels bound to each input, aria-describedby for error text, visible focus rings, "
        "and fixed the tab order.",
        ("blind users had trouble registering", "a11y of the account creation page"),
        "aria-describedby focus rings tab order",
    ),
    Topic(
        "grpc-timeout",
        "Calls between the inventory and pricing services hang.",
        "Every gRPC call now sets a deadline of two seconds and the client propagates the "
        "remaining deadline downstream.",
        ("requests between microservices waiting forever", "limits on how long remote calls wait"),
        "gRPC deadline propagates",
    ),
    Topic(
        "search-index",
        "Finding customers by name takes several seconds.",
        "Added a trigram GIN index with pg_trgm on the name column so ILIKE '%term%' uses the "
        "index.",
        ("slow lookup of people by name", "speed up the fuzzy name filter"),
        "trigram GIN pg_trgm ILIKE",
    ),
    Topic(
        "session-fixation",
        "The security scan flags that the session id survives login.",
        "The session identifier is now regenerated on login and privilege changes, and cookies are "
        "Secure, HttpOnly and SameSite=Lax.",
        ("cookie safety after authentication", "what we did about the login cookie finding"),
        "regenerated on login HttpOnly SameSite",
    ),
    Topic(
        "monorepo-ci",
        "CI runs every test for every change and takes 40 minutes.",
        "The pipeline computes changed packages from git diff and runs only their tests plus their "
        "dependents; the full suite still runs nightly.",
        ("build takes too long for small changes", "only test what was touched"),
        "changed packages git diff dependents",
    ),
    Topic(
        "circular-import",
        "Python fails at start with ImportError: cannot import name from partially "
        "initialized module.",
        "models imported services and services imported models; moved the shared types into a "
        "types module and used TYPE_CHECKING imports for annotations.",
        (
            "two modules depending on each other at load",
            "the startup error about half-loaded packages",
        ),
        "partially initialized module TYPE_CHECKING",
    ),
    Topic(
        "oauth-google",
        "Users ask to sign in with their Google account.",
        "Implemented the OpenID Connect authorization code flow with PKCE using authlib; the "
        "callback links the account by verified email.",
        ("single sign-on through an external identity provider", "social login"),
        "OpenID Connect authorization code PKCE authlib",
    ),
    Topic(
        "excel-export",
        "Finance wants the monthly numbers in a spreadsheet.",
        "The report endpoint writes an .xlsx with openpyxl, one sheet per month, bold headers and "
        "number formats for currency.",
        (
            "accountants need tables they can open in office software",
            "download figures as a workbook",
        ),
        "openpyxl xlsx sheet per month",
    ),
    Topic(
        "slow-tests",
        "The unit tests take nine minutes locally.",
        "Most time was creating the database per test; now one database per session with each test "
        "in a rolled-back transaction, and pytest-xdist runs them on all cores.",
        ("speeding up the test suite", "why checks took so long on my laptop"),
        "rolled-back transaction pytest-xdist",
    ),
    Topic(
        "api-versioning",
        "Mobile apps break when we change response fields.",
        "The API is versioned in the path, /v1 is frozen, new fields go to /v2, and a deprecation "
        "header announces the sunset date.",
        ("changing responses without breaking phone clients", "compatibility for old app releases"),
        "versioned in the path deprecation header sunset",
    ),
    Topic(
        "audit-log",
        "Compliance needs to know who changed what in admin.",
        "Every admin write appends a row to an audit_events table with actor, action, before and "
        "after JSON, written in the same transaction.",
        ("tracking which staff member edited records", "history of administrative modifications"),
        "audit_events actor before and after JSON",
    ),
    Topic(
        "env-parity",
        "It works locally but breaks on staging.",
        "Staging ran Python 3.10 while laptops had 3.12; pinned the version in .python-version and "
        "the Docker base image, and lock dependencies with uv.lock.",
        (
            "differences between my machine and the test environment",
            "why the preview server misbehaved",
        ),
        ".python-version uv.lock pinned",
    ),
    Topic(
        "notification-dedupe",
        "Users get the same push notification three times.",
        "Retries of the sender re-sent messages; each notification now has a dedupe key stored "
        "for a day and the sender skips keys it has seen.",
        ("duplicate alerts on phones", "people receiving repeated messages"),
        "dedupe key sender skips",
    ),
    Topic(
        "big-json",
        "The export endpoint runs out of memory on large accounts.",
        "It built the whole list in memory; it now streams JSON rows with a generator and a "
        "server-side cursor.",
        ("exporting lots of data crashes", "handle huge downloads without loading everything"),
        "streams JSON rows generator server-side cursor",
    ),
    Topic(
        "regex-backtracking",
        "Validating some email addresses pins the CPU at 100%.",
        "The pattern had nested quantifiers causing catastrophic backtracking; replaced it with a "
        "simple split on @ and a length check.",
        (
            "input validation hangs on certain strings",
            "the address checker that froze the processor",
        ),
        "nested quantifiers catastrophic backtracking",
    ),
    Topic(
        "secret-rotation",
        "An API key leaked in a screenshot.",
        "Revoked the key, issued a new one stored in the vault, and the app reloads credentials "
        "every hour so rotation needs no restart.",
        ("what we did after the credential was exposed", "changing keys without redeploying"),
        "revoked the key vault reloads credentials",
    ),
    Topic(
        "db-pool",
        "Under load we see too many connections errors from Postgres.",
        "Each worker opened its own pool of 20; put PgBouncer in transaction mode in front and "
        "cut the pool to 5 per process.",
        ("the database refused clients at peak", "connection exhaustion"),
        "PgBouncer transaction mode pool",
    ),
    Topic(
        "markdown-xss",
        "A user put a script tag in their bio and it ran.",
        "Rendered markdown is now sanitized with bleach using an allowlist of tags and attributes, "
        "and the CSP forbids inline scripts.",
        ("cross-site scripting through the profile text", "malicious html in user content"),
        "bleach allowlist CSP inline scripts",
    ),
    Topic(
        "geo-distance",
        "The store locator returns shops in the wrong order.",
        "Distances were Euclidean on latitude and longitude; now computed with the haversine "
        "formula, and PostGIS ST_DWithin prefilters candidates.",
        ("nearest branch finder sorted badly", "how we compute how far away places are"),
        "haversine PostGIS ST_DWithin",
    ),
    Topic(
        "undo-delete",
        "People delete projects by accident and want them back.",
        "Deletion is now soft: a deleted_at column, hidden from queries by default, with a restore "
        "button for 30 days before a purge job removes it.",
        ("recover things removed by mistake", "trash bin for workspaces"),
        "soft deleted_at purge job",
    ),
    Topic(
        "locale-sort",
        "The names list sorts Émile after Zoe.",
        "Sorting uses locale-aware collation with ICU (PyICU Collator) instead of plain string "
        "comparison.",
        ("alphabetical order wrong with accents", "ordering people properly in french"),
        "locale-aware collation ICU Collator",
    ),
    Topic(
        "webhook-signature",
        "Anyone could post fake events to our webhook endpoint.",
        "Incoming webhooks are verified with an HMAC-SHA256 signature header over the raw body and "
        "a timestamp tolerance of five minutes against replays.",
        ("forged callbacks from the partner", "authenticating inbound event posts"),
        "HMAC-SHA256 signature header replays",
    ),
    Topic(
        "cold-start",
        "The serverless function takes four seconds on first call.",
        "Most of it was importing pandas at module level; imports moved into the handler paths "
        "that need them and provisioned concurrency keeps one instance warm.",
        ("lambda slow on the first invocation", "startup latency of the cloud function"),
        "provisioned concurrency importing pandas",
    ),
)
