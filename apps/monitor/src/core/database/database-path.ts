import * as path from 'node:path';

export const DATABASE_FILE = 'monitor.db';

export const databasePath = (dataDir: string): string => path.join(dataDir, DATABASE_FILE);
