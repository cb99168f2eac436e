/** The parts of an application that hold its users' access: users, groups and roles (app-nav.tsx links them). */

export type AccessCollection = 'users' | 'groups' | 'roles';

export const ACCESS_SECTIONS: readonly AccessCollection[] = ['users', 'groups', 'roles'];
