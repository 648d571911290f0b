/** The adapter of an EDC kind (spec §4: kinds 1 and 3). */
import type { EdcAdapter, EdcSettings } from './adapter';
import { OdmHttpAdapter } from './odm-http';
import { RedcapAdapter } from './redcap';

export function edcAdapterFor(settings: EdcSettings): EdcAdapter {
  return settings.kind === 1 ? new OdmHttpAdapter(settings) : new RedcapAdapter(settings);
}
export * from './adapter';
