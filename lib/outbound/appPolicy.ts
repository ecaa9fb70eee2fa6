/** The outbound address policy of a process's settings, parsed once per context. */
import type { AppContext } from '../context.ts';
import { outboundPolicyFromConfig, type OutboundPolicy } from './addressPolicy.ts';

const policies = new WeakMap<AppContext, OutboundPolicy>();
export const policyOf = (app: AppContext): OutboundPolicy => {
  let policy = policies.get(app);
  if (!policy) policies.set(app, (policy = outboundPolicyFromConfig(app.config)));
  return policy;
};
