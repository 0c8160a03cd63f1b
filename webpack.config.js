// Nest CLI's webpack defaults, plus a second entry: the restore worker thread
// (apps/monitor/src/backup/restore-worker.ts), emitted as dist/apps/monitor/restore-worker.js
// beside main.js, where the server starts it from.
const path = require('node:path');

module.exports = (options) => ({
  ...options,
  entry: {
    main: options.entry,
    'restore-worker': path.join(__dirname, 'apps/monitor/src/backup/restore-worker.ts'),
  },
  output: {
    ...options.output,
    filename: path.join(path.dirname(options.output.filename), '[name].js'),
  },
});
