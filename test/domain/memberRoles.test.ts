/** The membership rules of domain/memberRoles.ts: who grants which role, and the last owner. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canGrant, removalRefusal, roleChangeRefusal, roles } from '../../domain/memberRoles.ts';

test('owners grant every role, admins every role but owner, members and viewers none', () => {
  const grants = Object.fromEntries(roles.map((actor) => [actor, roles.filter((target) => canGrant(actor, target))]));
  assert.equal(grants, { owner: ['owner', 'admin', 'member', 'viewer'], admin: ['admin', 'member', 'viewer'], member: [], viewer: [] });
});

test('a role change needs both roles grantable: 403 naming the three roles', () => {
  assert.is(roleChangeRefusal('owner', 'member', 'admin', 1), null);
  const refused = roleChangeRefusal('admin', 'owner', 'member', 2);
  assert.is(refused?.code, 'forbidden');
  assert.is(refused?.message, 'A admin cannot change a owner into a member');
  assert.is(roleChangeRefusal('admin', 'member', 'owner', 2)?.code, 'forbidden');
});

test('the last owner is neither demoted nor removed (409); with another owner both are fine', () => {
  assert.is(roleChangeRefusal('owner', 'owner', 'admin', 1)?.code, 'conflict');
  assert.is(roleChangeRefusal('owner', 'owner', 'owner', 1), null);
  assert.is(roleChangeRefusal('owner', 'owner', 'admin', 2), null);
  assert.is(removalRefusal('owner', 'owner', 1)?.message, 'The workspace must keep at least one owner');
  assert.is(removalRefusal('owner', 'owner', 2), null);
  assert.is(removalRefusal('admin', 'owner', 2)?.code, 'forbidden');
  assert.is(removalRefusal('member', 'viewer', 2)?.message, 'A member cannot remove a viewer');
});

test.run();
