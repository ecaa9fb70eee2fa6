/** What each /v1 machine credential looks like: the prefix by which the authenticator tells them apart. */
export const SERVICE_ACCOUNT_TOKEN_PREFIX = 'svc_sat_';
export const API_KEY_PREFIX = 'svc_key_';
/** SCIM bearer tokens, for /scim/v2/{organization slug} only. */
export const SCIM_TOKEN_PREFIX = 'svc_scim_';
