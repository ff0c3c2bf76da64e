/** Personal access token scopes GitLab accepts (the service validates with this list; Settings offers it). */
export const TOKEN_SCOPES = [
  'api',
  'read_api',
  'read_user',
  'create_runner',
  'manage_runner',
  'k8s_proxy',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'read_virtual_registry',
  'write_virtual_registry',
  'read_observability',
  'write_observability',
  'ai_features',
  'sudo',
  'admin_mode',
  'read_service_ping',
  'self_rotate',
] as const;

export type TokenScope = (typeof TOKEN_SCOPES)[number];
