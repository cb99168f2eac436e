/**
 * The uuid of Usergrid's management application, reported as `applicationId` of admin users
 * and organizations (Usergrid's User and Organization models). Fixed so clients can rely on it.
 */
export const MANAGEMENT_APPLICATION_UUID = 'b6768a08-b5d5-11e3-a495-10ddb1de66c3';
