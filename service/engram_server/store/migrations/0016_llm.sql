-- LLM providers: a tenant's own provider settings and its token usage.
--
-- `tenant_llm_config` holds at most one row per tenant; the API key is stored here
-- for the server to use and is never returned by any RPC. Like `api_keys`, the
-- platform flag admits a platform administrator's transaction, which manages any
-- tenant's settings.
--
-- `llm_usage` counts requests and tokens per tenant, provider, model and UTC day,
-- upserted after every provider reply. It is tenant data (like `memories`): only a
-- transaction scoped to the tenant sees it.
--
-- Tenant deletion needs nothing here: `engram_delete_tenant` sweeps every table
-- with a `tenant_id` column and reports each one's count.

CREATE TABLE tenant_llm_config (
  tenant_id        text PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
  provider         text NOT NULL CHECK (provider IN ('openai', 'anthropic')),
  base_url         text NOT NULL DEFAULT '',
  model            text NOT NULL,
  api_key          text NOT NULL DEFAULT '',
  timeout_seconds  double precision NOT NULL DEFAULT 30 CHECK (timeout_seconds > 0),
  update_time      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE llm_usage (
  tenant_id          text NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  provider           text NOT NULL,
  model              text NOT NULL,
  day                date NOT NULL,
  requests           bigint NOT NULL DEFAULT 0,
  prompt_tokens      bigint NOT NULL DEFAULT 0,
  completion_tokens  bigint NOT NULL DEFAULT 0,
  update_time        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, provider, model, day)
);

ALTER TABLE tenant_llm_config ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_llm_config FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenant_llm_config
  USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))
  WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()));

ALTER TABLE llm_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_usage FORCE ROW LEVEL SECURITY;
-- As in 0013: the server role sees the transaction's tenant only; the owner role
-- (SECURITY DEFINER maintenance such as tenant deletion) may act platform-wide.
CREATE POLICY tenant_isolation ON llm_usage TO engram_app
  USING (tenant_id = (SELECT engram_current_tenant()))
  WITH CHECK (tenant_id = (SELECT engram_current_tenant()));
DO $$
BEGIN
  EXECUTE format('CREATE POLICY maintenance ON llm_usage TO %I '
                 'USING (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant())) '
                 'WITH CHECK (engram_is_platform() OR tenant_id = (SELECT engram_current_tenant()))',
                 current_user);
END
$$;

GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_llm_config TO engram_app;
GRANT SELECT, INSERT, UPDATE ON llm_usage TO engram_app;
