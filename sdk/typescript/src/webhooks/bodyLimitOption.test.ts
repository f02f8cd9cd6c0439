import {
  readNodeRawBody,
  verifyNodeWebhook,
  webhookNodeHandler,
  type NodeRequestLike,
} from './nodeHttp';
import { verifyWebhookRequest, webhookFetchHandler } from './webRequest';
import { WEBHOOK_EVENT_TYPES } from './eventTypes';

const options = { secret: 'whsec_x', eventTypes: WEBHOOK_EVENT_TYPES };
/** A request express.text() already read: the limit is checked before the body is looked at. */
const nodeReq: NodeRequestLike = {
  headers: {},
  body: '{}',
  async *[Symbol.asyncIterator]() {},
};
const webReq = new Request('https://receiver.test/hook', { method: 'POST', body: '{}' });

describe('maxBodyBytes is checked', () => {
  it.each([-1, NaN, Infinity, '1024'])('refuses %p with a TypeError naming it', async (max) => {
    const maxBodyBytes = max as number;
    await expect(readNodeRawBody(nodeReq, maxBodyBytes)).rejects.toThrow(/maxBodyBytes/);
    await expect(verifyNodeWebhook(nodeReq, { ...options, maxBodyBytes })).rejects.toThrow(
      TypeError,
    );
    await expect(verifyWebhookRequest(webReq, { ...options, maxBodyBytes })).rejects.toThrow(
      /maxBodyBytes/,
    );
    const onEvent = () => undefined;
    expect(() => webhookNodeHandler({ ...options, onEvent, maxBodyBytes })).toThrow(/maxBodyBytes/);
    expect(() => webhookFetchHandler({ ...options, onEvent, maxBodyBytes })).toThrow(
      /maxBodyBytes/,
    );
  });
});
