import type { Area } from '../index';
import { coreMigrations } from './schema';
import { registerUserRoutes } from './routes/users';
import { registerGroupRoutes } from './routes/groups';
import { registerProjectRoutes } from './routes/projects';
import { registerMemberRoutes } from './routes/members';
import { registerIssueRoutes } from './routes/issues';
import { registerMergeRequestRoutes } from './routes/merge_requests';
import { registerNoteRoutes } from './routes/notes';
import { registerNamespaceRoutes } from './routes/namespaces';
import { registerMilestoneRoutes } from './routes/milestones';
import { registerResourceEventRoutes } from './routes/resource_events';
import { registerIssueLinkRoutes } from './routes/issue_links';
import { registerIssuableRelationRoutes } from './routes/issuable_relations';
import { registerTimeTrackingRoutes } from './routes/time_tracking';
import { registerTodoRoutes } from './routes/todos';
import { registerTopicRoutes } from './routes/topics';
import { registerCustomAttributeRoutes } from './routes/custom_attributes';
import { registerSshKeyRoutes } from './routes/ssh_keys';
import { registerEmailRoutes } from './routes/emails';
import { registerStarRoutes } from './routes/stars';
import { registerAvatarRoutes } from './routes/avatars';
import { registerSearchRoutes } from './routes/search';
import { registerGroupLinkRoutes } from './routes/group_links';
import { sweepOrphanedAvatars } from './avatars';

/** Version, users and tokens, groups, projects, members, issues, merge requests and their notes. */
export const coreArea: Area = {
  name: 'core',
  migrations: coreMigrations,
  register(router) {
    registerUserRoutes(router);
    registerGroupRoutes(router);
    registerProjectRoutes(router);
    registerMemberRoutes(router);
    registerIssueRoutes(router);
    registerMergeRequestRoutes(router);
    registerNoteRoutes(router);
    registerNamespaceRoutes(router);
    registerMilestoneRoutes(router);
    registerResourceEventRoutes(router);
    registerIssueLinkRoutes(router);
    registerIssuableRelationRoutes(router);
    registerTimeTrackingRoutes(router);
    registerTodoRoutes(router);
    registerTopicRoutes(router);
    registerCustomAttributeRoutes(router);
    registerSshKeyRoutes(router);
    registerEmailRoutes(router);
    registerStarRoutes(router);
    registerAvatarRoutes(router);
    registerSearchRoutes(router);
    registerGroupLinkRoutes(router);
  },
  start(svc) {
    try {
      sweepOrphanedAvatars(svc);
    } catch (err) {
      console.error('[sandlab] avatar sweep failed:', err);
    }
  },
};
