/**
 * The one error path of the HTTP boundary: every AppError, framework error and validation
 * failure becomes the error body of docs/api.md#errors `{error, error_description, code, message,
 * fields, timestamp, duration}` with its status. Real faults are logged and answered with a
 * generic 500, never a stack trace.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { z } from 'zod';
import { AppError, IllegalArgument, Internal, MethodNotAllowed, NotFound, PayloadTooLarge, UnsupportedMediaType } from '../src/errors.js';
import type { Env } from './env.js';
import { clientOf } from './client-address.js';

export function errorBody(error: AppError, startedAt: number | undefined) {
  const now = Date.now();
  return {
    error: error.error,
    error_description: error.message,
    code: error.status,
    message: error.message,
    fields: error.fields,
    timestamp: now,
    duration: startedAt === undefined ? 0 : now - startedAt,
  };
}

export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof HTTPException) {
    switch (error.status) {
      case 400:
        return IllegalArgument(error.message || 'bad request');
      case 404:
        return NotFound('no such resource');
      case 405:
        return MethodNotAllowed('method not allowed');
      case 413:
        return PayloadTooLarge('the request body is too large');
      case 415:
        return UnsupportedMediaType('the request body must be application/json or application/x-www-form-urlencoded');
    }
  }
  return null;
}

export function onError(error: unknown, c: Context<Env>): Response {
  let appError = toAppError(error);
  if (!appError) {
    c.get('logger')?.error({ err: error, method: c.req.method, path: c.req.path, address: clientOf(c).address }, 'request failed');
    appError = Internal('an internal error occurred');
  }
  for (const [name, value] of Object.entries(appError.headers)) c.header(name, value);
  return c.json(errorBody(appError, c.get('startedAt')), appError.status as 400);
}

/** zod failures at the edge: one message, and `fields` naming each offending field. */
export function validationError(error: z.ZodError): AppError {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.join('.') : 'body';
    fields[key] ??= issue.message;
  }
  const description = Object.entries(fields)
    .map(([field, message]) => (message.startsWith(field) ? message : `${field}: ${message}`))
    .join('; ');
  return IllegalArgument(description, { fields });
}

/** The defaultHook of every OpenAPIHono router: turn a failed validation into our error. */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (!result.success) throw validationError(result.error as z.ZodError);
}
