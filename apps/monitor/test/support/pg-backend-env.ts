// Jest setupFiles of the *-pg projects: tells the test helpers to run the app on PostgreSQL.
process.env.MONITOR_TEST_BACKEND = 'postgres';
