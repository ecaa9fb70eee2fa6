/** Delivers one outbox e-mail (usecases/sendOutboxEmail.ts). */
import { sendOutboxEmail } from '../../usecases/sendOutboxEmail.ts';
import { mailSend } from '../queue/mail__send.ts';
import { defineTask } from '../runtime.ts';

export const mailSendTask = defineTask({ ...mailSend, run: sendOutboxEmail });
