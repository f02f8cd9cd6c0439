import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { AppError } from '@brand/shared/errors';
import { refuseNonUtf8 } from '@brand/shared/httpServer';
import type { AccessGate } from '../../auth/accessGate';
import type { PlansApi } from '../../clients/plansClient';
import { sendJson } from '../../http/jsonResponse';
import {
  declaresTooLargeBody,
  jsonBodyProblem,
  JSON_BODY_REFUSALS,
  readBodyWith,
  type BodyParser,
} from '../../http/requestBody';
import { pathOf, type RequestScope } from '../../http/requestScope';
import { admitApiKey } from '../../prelude/admission';
import { preparePlan, requirePreparePermission } from '../../plans/preparePlan';
import type { LeanPath } from '../endpoint';
import { CAMPAIGN_PLANS_PATH, MAX_BODY_BYTES } from './input';

export interface PlansDeps {
  gate: AccessGate;
  plans: PlansApi;
}

/** CAMPAIGN_PLANS_PATH as express's router matched it: any case, an optional trailing slash. */
const PLANS_PATH = /^\/api\/v1\/campaign-plans\/?$/i;

/**
 * body-parser's JSON reader, as the express route used it (size limit, charset,
 * Content-Encoding, aborted uploads, `strict: false`), refusing bytes that are not UTF-8
 * (refuseNonUtf8: its decoder would read them as U+FFFD); its errors carry the `type` that
 * errorAnswer turns into 413, 400 or 415 (http/errorHandler.ts).
 */
const jsonBody = express.json({
  limit: MAX_BODY_BYTES,
  strict: false,
  verify: refuseNonUtf8,
}) as unknown as BodyParser;

/**
 * POST /api/v1/campaign-plans (docs/contract.md#campaign-plans): prepares a campaign plan for
 * human review, on plain node:http (a retry's replay is as frequent as a page for an agent
 * that retries, and express's router and body middleware were half the gateway's CPU of one).
 * In order: the key and one unit of the brand's budget (admitApiKey: 401, 429), the
 * campaigns:prepare permission (403), JSON (415; then 413 or 400 as the body is read, only
 * after the key and its permission, so anonymous or read-only callers cannot make us parse),
 * the input (400 validation_failed), then the plans service: 201 with the new plan, or 200
 * with `Idempotent-Replayed: true` and the identical plan for a retry; 409 request_conflict;
 * 422 pending_plan_limit. Other methods are express's 405 (route.ts).
 */
export function campaignPlansPath(deps: PlansDeps): LeanPath {
  return (req, res, scope) => {
    if (req.method !== 'POST' || !PLANS_PATH.test(pathOf(req.url))) return undefined;
    scope.route = CAMPAIGN_PLANS_PATH;
    return answerPlan(deps, req, res, scope);
  };
}

async function answerPlan(
  deps: PlansDeps,
  req: IncomingMessage,
  res: ServerResponse,
  scope: RequestScope,
): Promise<void> {
  const { identity } = await admitApiKey(deps.gate, req, res);
  deps.gate.requirePermission(identity, requirePreparePermission);
  const problem = jsonBodyProblem(req);
  if (problem === 'not_json' || problem === 'not_utf8')
    throw new AppError('unsupported_media_type', JSON_BODY_REFUSALS[problem]);
  if (problem === 'missing') throw new AppError('malformed_request', JSON_BODY_REFUSALS.missing);
  if (declaresTooLargeBody(req, MAX_BODY_BYTES))
    throw new AppError('payload_too_large', 'The request body is too large.');
  // jsonBodyProblem admitted the body as UTF-8 JSON (charset utf-8, utf8 or none); body-parser
  // decodes only `utf-` charsets and refused `utf8` with 415 "must be UTF-8 JSON", which the
  // assistant endpoint reads. Its media type alone reads the body as the UTF-8 it is.
  req.headers['content-type'] = 'application/json';
  const body = await readBodyWith(jsonBody, req, res, MAX_BODY_BYTES);
  const { plan, replayed } = await preparePlan(deps.plans, identity, body, scope.requestId);
  if (replayed) res.setHeader('Idempotent-Replayed', 'true');
  sendJson(res, replayed ? 200 : 201, JSON.stringify(plan));
}
