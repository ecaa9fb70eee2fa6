/** Outgoing mail through nodemailer (SMTP_URL); without SMTP_URL messages are only logged. */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from './config.ts';

const transports = new Map<string, Transporter>();

/** The shared transport for SMTP_URL, or null when mail is not configured. */
export function mailTransport(config: Config): Transporter | null {
  if (!config.SMTP_URL) return null;
  let transport = transports.get(config.SMTP_URL);
  if (!transport) {
    transport = nodemailer.createTransport(config.SMTP_URL);
    transports.set(config.SMTP_URL, transport);
  }
  return transport;
}
