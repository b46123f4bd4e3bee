-- Idempotent CreateTenant / CreateApiKey: the request_id of the call that created
-- a tenant or key is kept on its row, so a retry finds the first result instead of
-- creating a second one. (The generic `idempotency` table stores results; a key's
-- result holds its secret, which must never be stored, hence a column here.)

ALTER TABLE tenants ADD COLUMN create_request_id text;
CREATE UNIQUE INDEX tenants_create_request ON tenants (create_request_id)
  WHERE create_request_id IS NOT NULL;

ALTER TABLE api_keys ADD COLUMN create_request_id text;
CREATE UNIQUE INDEX api_keys_create_request ON api_keys (tenant_id, create_request_id)
  WHERE create_request_id IS NOT NULL;
