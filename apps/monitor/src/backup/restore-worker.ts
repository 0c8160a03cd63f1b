/**
 * Entry of the restore worker thread (built as dist/apps/monitor/restore-worker.js beside
 * main.js): writes one checked document and answers what changed, or why nothing did.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { replyTo, type RestoreJob } from './restore-job';

void replyTo(workerData as RestoreJob).then((reply) => parentPort!.postMessage(reply));
