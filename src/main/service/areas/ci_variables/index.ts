import type { Area } from '../index';
import { ciVariableMigrations } from './schema';
import { registerVariableRoutes } from './routes';

/** CI/CD variables of projects, groups and the instance. */
export const ciVariablesArea: Area = {
  name: 'ci_variables',
  migrations: ciVariableMigrations,
  register(router) {
    registerVariableRoutes(router);
  },
};
