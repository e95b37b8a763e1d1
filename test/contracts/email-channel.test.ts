/**
 * The shared channel contract, run against the real email channel (nodemailer) and a real SMTP server; taps follow
 * the mailed links' confirmation page and post its form, as an approver's browser does.
 */
import { makeEmailHarness } from '../fakes/email/harness.js';
import { runChannelContract } from './channel.contract.js';

runChannelContract('email', () => makeEmailHarness());
