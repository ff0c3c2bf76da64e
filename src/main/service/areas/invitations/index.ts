import type { Area } from '../index';
import { userCreatedHooks } from '../core/accounts';
import { registerInvitationRoutes } from './routes';
import { acceptPendingInvitations } from './invitations';

/** Invitations: pending member rows (no user, an invite token) of core's members table. */
export const invitationsArea: Area = {
  name: 'invitations',
  migrations: [],
  register(router) {
    registerInvitationRoutes(router);
  },
  start() {
    if (!userCreatedHooks.includes(acceptPendingInvitations)) userCreatedHooks.push(acceptPendingInvitations);
  },
};
