// Paired phones (backend/api/devices.go): pairing one turns the phones' LAN
// listener on and answers the one-time link (and its QR code) and the
// certificate's fingerprint; the list, rename and removal.

import { DecodeError, isObject } from './decode';
import { jsonRequest } from './mergeClient';

type Request = ReturnType<typeof jsonRequest>;

export interface Device {
  id: string;
  name: string;
  createdAt: number;
  /** When it last asked anything (Unix ms). */
  lastSeen: number;
}

/** An open pairing window. */
export interface Pairing {
  /** https://<address>:<port>/pair#<one-time code> */
  url: string;
  /** The link as a QR code: an SVG image's data: URL. */
  qr: string;
  /** The listener certificate's SHA-256, hex with colons. */
  fingerprint: string;
  expiresAt: number;
}

function decodeDevice(v: unknown): Device {
  if (!isObject(v) || typeof v.id !== 'string' || typeof v.name !== 'string') throw new DecodeError('device: expected {id, name, ...}');
  return { id: v.id, name: v.name, createdAt: typeof v.createdAt === 'number' ? v.createdAt : 0, lastSeen: typeof v.lastSeen === 'number' ? v.lastSeen : 0 };
}

export class DevicesApi {
  constructor(private readonly request: Request) {}

  /** Opens a pairing window (on address when given, else this computer's LAN address). */
  async pair(address = ''): Promise<Pairing> {
    const raw = await this.request('POST', '/api/devices/pairing', address ? { address } : {});
    if (!isObject(raw) || typeof raw.url !== 'string' || typeof raw.fingerprint !== 'string') throw new DecodeError('pairing: expected {url, fingerprint, expiresAt}');
    const qr = typeof raw.qr === 'string' && raw.qr.startsWith('data:image/svg+xml;base64,') ? raw.qr : '';
    return { url: raw.url, qr, fingerprint: raw.fingerprint, expiresAt: typeof raw.expiresAt === 'number' ? raw.expiresAt : 0 };
  }

  async list(): Promise<Device[]> {
    const raw = await this.request('GET', '/api/devices');
    if (!isObject(raw) || !Array.isArray(raw.devices)) throw new DecodeError('devices: expected {devices: [...]}');
    return raw.devices.map(decodeDevice);
  }

  async rename(id: string, name: string): Promise<Device> {
    const raw = await this.request('PATCH', `/api/devices/${encodeURIComponent(id)}`, { name });
    return decodeDevice(isObject(raw) ? raw.device : raw);
  }

  /** Revokes a device at once (its open page too); the last one turns the listener off. */
  async remove(id: string): Promise<void> {
    await this.request('DELETE', `/api/devices/${encodeURIComponent(id)}`);
  }
}

export const devicesApi = new DevicesApi(jsonRequest());
