#!/bin/sh
# Runs once, when the postgres container starts on an empty data volume (docker-entrypoint-initdb.d).
# The server's own login: owner of the database, not a superuser; CREATEROLE so that it can create
# and re-grant SQL execution's two login roles (velo_sql_read, velo_sql_write; docs/tools.md). Where
# a DBA makes those roles instead, drop CREATEROLE and set SQL_READ/WRITE_DATABASE_URL.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v app_password="$VELO_DB_PASSWORD" <<'SQL'
CREATE ROLE velo LOGIN CREATEROLE PASSWORD :'app_password';
CREATE DATABASE velo OWNER velo;
SQL
