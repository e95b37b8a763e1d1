/** The shared channel contract, run against the Feishu adapter, the real Lark SDK and the fake Feishu server. */
import { makeFeishuHarness } from '../fakes/feishu/harness.js';
import { runChannelContract } from './channel.contract.js';

process.env.NO_PROXY = '127.0.0.1';

runChannelContract('feishu', () => makeFeishuHarness());
