# Tongiaki: `make run` starts everything, `make test` runs every test.
# Both set up .venv on first use; nothing else needs installing by hand.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp

.PHONY: help install run test pytest lint typecheck bench clean browser axe postgres proto proto-lint serve load-bench i18n ruby-client

help:
	@echo "make run        start the game server and the web client"
	@echo "make test       lint, type-check and run every test"
	@echo "make bench      run the benchmarks and print their figures"
	@echo "make serve      start the game server alone (port 50051, data in ./data)"
	@echo "make proto      regenerate tongiaki/v1 from proto/ (after proto-lint)"
	@echo "make i18n       extract, update, compile and export the web client's catalogs"
	@echo "make ruby-client  Debian's ruby-grpc and protoc, and the Ruby client's code from proto/"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m webclient

test: lint typecheck pytest

pytest: $(STAMP) browser ruby-client postgres axe
	$(PY) -m pytest

# Browser tests drive Debian's Chromium (Playwright's own download is not used).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; }
	@fc-list 2>/dev/null | grep -qi 'Noto Sans CJK' || { \
		echo "installing Noto CJK fonts for the Japanese screenshots"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk) >/dev/null; }

# The browser tests' npm packages, from the committed lockfile under tests/webclient
# (node_modules/): axe-core, injected into pages to check accessibility, and ESLint,
# which checks the browser's scripts.
AXE := tests/webclient/node_modules/axe-core/axe.min.js

axe: $(AXE)

$(AXE): tests/webclient/package.json tests/webclient/package-lock.json
	@command -v npm >/dev/null 2>&1 || { \
		echo "installing Debian's npm for axe-core"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm) >/dev/null; }
	cd tests/webclient && npm ci --no-audit --no-fund --silent
	touch $@

# The PostgreSQL tests and benchmarks start a private cluster of their own
# (tests/pgcluster.py) from Debian's postgresql binaries; no system service is
# used. The package is installed with its default cluster turned off.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
		echo "installing Debian's postgresql for the tests"; \
		(apt-get update -qq && \
		 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-common && \
		 sed -i 's/^#*\s*create_main_cluster.*/create_main_cluster = false/' \
			/etc/postgresql-common/createcluster.conf && \
		 DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql) >/dev/null; }

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy engine tongiaki server webclient tests benchmarks examples bots

bench: $(STAMP)
	$(PY) benchmarks/engine_bench.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

# The contract: buf lint (STANDARD) and the generated Python of the contract's
# package, tongiaki/v1 (protoc writes it at the path of its proto package, so
# its imports, ``from tongiaki.v1 import …``, are right as generated).
PROTOS := proto/tongiaki/v1/game.proto proto/tongiaki/v1/game_service.proto

proto-lint: $(STAMP)
	cd proto && ../$(VENV)/bin/buf lint

proto: proto-lint
	rm -f tongiaki/v1/*_pb2.py tongiaki/v1/*_pb2.pyi tongiaki/v1/*_pb2_grpc.py tongiaki/v1/*_pb2_grpc.pyi
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) -m grpc_tools.protoc -Iproto \
		--python_out=. --grpc_python_out=. --mypy_out=. --mypy_grpc_out=. $(PROTOS)

# Web client translations: the .po files are the source; the browser's JSON
# (webclient/static/i18n) is exported from them and committed.
I18N := webclient/translations

i18n: $(STAMP)
	$(VENV)/bin/pybabel extract -F webclient/babel.cfg -k t -k 'Np_:1,2' --no-location \
		--sort-output --project Tongiaki --copyright-holder Tongiaki \
		-o $(I18N)/messages.pot webclient
	$(VENV)/bin/pybabel update -i $(I18N)/messages.pot -d $(I18N) --no-fuzzy-matching \
		--ignore-obsolete --width 100
	$(VENV)/bin/pybabel compile -d $(I18N) --statistics
	$(PY) -m webclient.catalogs

serve: $(STAMP)
	$(PY) -m server

load-bench: $(STAMP)
	$(PY) benchmarks/load_bench.py

# The Ruby client (clients/ruby): Debian's ruby-grpc and protoc with its gRPC
# plugin, installed when missing, and the client's code generated from proto/
# into clients/ruby/gen (not committed; regenerated whenever proto/ changes).
RUBY_GEN := clients/ruby/gen/tongiaki/v1/game_service_services_pb.rb

ruby-client: $(RUBY_GEN)

$(RUBY_GEN): $(PROTOS)
	@{ command -v ruby && command -v protoc && command -v grpc_ruby_plugin && ruby -e 'require "grpc"'; } \
		>/dev/null 2>&1 || { \
		echo "installing Debian's ruby-grpc and protoc for the Ruby client"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			ruby ruby-grpc ruby-google-protobuf protobuf-compiler protobuf-compiler-grpc) >/dev/null; }
	rm -rf clients/ruby/gen && mkdir -p clients/ruby/gen
	protoc -Iproto --ruby_out=clients/ruby/gen --grpc_out=clients/ruby/gen \
		--plugin=protoc-gen-grpc=$$(command -v grpc_ruby_plugin) $(PROTOS)
