-- Server-wide secrets shared by every replica (no tenant owns them).
--
-- `page_tokens` signs page tokens (HMAC-SHA256). It is generated here, once, so all
-- replicas of a deployment sign and verify with the same key without configuring
-- one; a configured `page_token_secret` setting takes precedence over it.
CREATE TABLE server_secrets (
  name   text PRIMARY KEY,
  value  bytea NOT NULL CHECK (octet_length(value) >= 32)
);

INSERT INTO server_secrets (name, value)
VALUES ('page_tokens',
        decode(replace(gen_random_uuid()::text || gen_random_uuid()::text
                       || gen_random_uuid()::text, '-', ''), 'hex'));

-- Readable only in a platform transaction; never writable by the server role.
ALTER TABLE server_secrets ENABLE ROW LEVEL SECURITY;
ALTER TABLE server_secrets FORCE ROW LEVEL SECURITY;
CREATE POLICY platform_only ON server_secrets
  USING (engram_is_platform())
  WITH CHECK (false);

GRANT SELECT ON server_secrets TO engram_app;
