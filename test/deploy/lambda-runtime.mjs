// The stand-in for the Lambda Node.js runtime that test:deploy runs a function's bundle in: one
// child process per execution environment ("container"), started by lambda-container.ts with the
// deployed function's environment, its working directory the bare bundle (LAMBDA_TASK_ROOT).
//
// Like the runtime, it imports the module `_HANDLER` names once (the init phase: top-level awaits
// run here, and a failure is reported as an init error), then serves invocations one at a time:
// the event and a context whose getRemainingTimeInMillis counts down to the invocation's deadline.
// Plain JavaScript with only node: imports, so nothing but the bundle and @aws-sdk/* (which the
// runtime provides) can be resolved from here.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const taskRoot = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
const [moduleName, exportName] = (process.env._HANDLER ?? 'index.handler').split('.');

/** @param {unknown} error */
function describe(error) {
  return error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : { name: 'Error', message: String(error) };
}

let handler;
try {
  const module = await import(pathToFileURL(join(taskRoot, `${moduleName}.mjs`)).href);
  handler = module[exportName];
  if (typeof handler !== 'function') throw new TypeError(`${moduleName}.${exportName} is not a function`);
} catch (error) {
  process.send?.({ type: 'init-error', error: describe(error) });
  process.exit(1);
}

process.on('message', async (message) => {
  if (message?.type !== 'invoke') return;
  const { id, event, deadlineMs, requestId, functionArn } = message;
  const context = {
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadlineMs - Date.now()),
  };
  try {
    const result = await handler(event, context);
    process.send?.({ type: 'result', id, result: result ?? null });
  } catch (error) {
    process.send?.({ type: 'error', id, error: describe(error) });
  }
});

process.send?.({ type: 'ready' });
