/**
 * One interface for every EDC kind (spec §4: kinds 1 and 3). The sync engine (edc-sync.service.ts) maps our
 * instances to target terms through the project's EDC mapping and talks to the target only through this interface:
 *
 * - kind 1, `odm-http.ts`: CDISC ODM 1.3.2 ClinicalData transactions over HTTP, the way Medidata Rave Web Services
 *   (and OpenClinica/LibreClinica's ODM import) take them: POST an ODM document per subject, read the subject's
 *   current data back as ODM, read the study metadata as ODM for the item list.
 * - kind 3, `redcap.ts`: the REDCap API (token; content=metadata / event / formEventMapping for the item list,
 *   export records for the current values, import records with overwriteBehavior=normal or overwrite to clear,
 *   action=delete of an instrument for a removed form instance).
 *
 * Adapters are stateless apart from their settings; they never log or return the secret.
 */

/** One item the target offers (getEDCItemList): what a mapping may point at. */
export interface EdcTargetItem {
  /** the target's event (ODM StudyEventOID; REDCap unique_event_name), absent when the target has no events */
  event?: string;
  /** the target's form (ODM FormOID; REDCap instrument name) */
  form: string;
  /** ODM ItemGroupOID (kind 1); absent for REDCap */
  group?: string;
  /** ODM ItemOID; REDCap field_name */
  item: string;
  label?: string;
  /** the target's data type (ODM DataType; REDCap field type + validation) */
  dataType: string;
  required: boolean;
  /** coded values the item takes (ODM CodeList; REDCap choices) */
  codes?: { value: string; label?: string }[];
  /** the form repeats at the target (ODM Repeating FormDef; REDCap repeating instrument) */
  repeating?: boolean;
}

/** One value of a record in target terms. */
export interface EdcRecordItem {
  item: string;
  /** the value in the target's terms (codes already mapped); null = clear the value at the target */
  value: string | null;
  /**
   * kind 1: the ItemGroupOID holding the item (the mapping's target group); absent: the record's `group`, else the
   * group of the target's form that holds the item (its metadata). A form of several groups is sent as one
   * ItemGroupData per group.
   */
  group?: string;
  /** a multiple choice (codes joined by ','): kind 1 writes one ItemGroupData per code where the item's group repeats */
  multiple?: boolean;
}

/** One of our form instances in target terms: what is sent for it. */
export interface EdcRecord {
  /** our key of the record (the eCRF instance id), echoed in the results */
  key: string;
  event?: string;
  /** the event's occurrence at the target (unscheduled visits, repeated events); 1 when absent */
  eventRepeat?: number;
  form: string;
  /** the form's occurrence at the target (cycle forms); 1 when absent */
  formRepeat?: number;
  /** kind 1: the item group of items that name none (see EdcRecordItem.group) */
  group?: string;
  items: EdcRecordItem[];
  /**
   * The form instance was deleted in our eCRF after it was synced: 'form' removes the whole form instance at the
   * target (ODM FormData TransactionType="Remove"; REDCap action=delete of the instrument), 'items' clears only the
   * listed items (the target form also holds another of our forms). Absent: the items are written.
   */
  remove?: 'form' | 'items';
  /**
   * What the target holds for this record, read just before (current): item → value; null = the target has no such
   * record. With it, an adapter sends only the removals there is something to remove for (ODM makes a Remove of
   * data that is not there an error) and sizes repeated groups; absent (not read), a cleared value is written the
   * idempotent way (ODM ItemData Upsert IsNull="Yes") and a removal is sent as it is.
   */
  atTarget?: Record<string, string | null> | null;
}

/** What the target said about one record. */
export interface EdcRecordResult {
  key: string;
  ok: boolean;
  /** the target's own reason when refused (its message, its error code) */
  reason?: string;
  /**
   * The exchange that decided this record — the call that refused it, or the one that accepted it — with the
   * request cut down to this record's part and, where the answer lists problems per record, the answer to its own.
   */
  exchange?: EdcExchange;
  /** nothing had to change at the target for this record (e.g. a removal of what it no longer holds): no call made */
  noop?: boolean;
}

/** What one exchange with the target was, for the EDC log (request and response bodies cut to a few KB). */
export interface EdcExchange {
  method: string;
  url: string;
  /** the body sent, secrets removed */
  request?: string;
  httpStatus?: number;
  response?: string;
  ms: number;
}

export interface EdcSendOutcome {
  results: EdcRecordResult[];
  exchanges: EdcExchange[];
}

/** A failure of the whole exchange (not of one record): the records stay unsent and are retried. */
export class EdcTransportError extends Error {
  constructor(
    readonly kind: 'timeout' | 'auth' | 'http' | 'network' | 'protocol',
    message: string,
    readonly exchange?: EdcExchange,
  ) {
    super(message);
  }
}

export interface EdcSettings {
  kind: 1 | 3;
  /** the target's base URL (kind 1: the Rave/ODM web services root; kind 3: REDCap's API URL ending in /api/) */
  baseUrl: string;
  /** kind 1: the study OID at the target; kind 3: unused */
  studyOid?: string;
  /** kind 1: the target's environment (Rave's "Prod", "UAT", …) */
  environment?: string;
  /** kind 1: "user:password" (HTTP Basic); kind 3: the API token */
  secret: string;
  /** per-request timeout, ms (default 30,000) */
  timeoutMs?: number;
}

export interface EdcAdapter {
  readonly kind: 1 | 3;
  /** a cheap authenticated call: throws EdcTransportError when the target cannot be reached or refuses the secret */
  test(): Promise<EdcExchange>;
  /** the items the target offers, for mapping */
  itemList(): Promise<EdcTargetItem[]>;
  /**
   * The target's current values of a subject's records, keyed by EdcRecord.key then item: what the engine compares
   * with what it last sent, to report a value changed at the target as a conflict instead of overwriting it. A record
   * the target does not have yet is absent.
   */
  current(subjectKey: string, siteKey: string | undefined, records: EdcRecord[]): Promise<{ values: Map<string, Map<string, string | null>>; exchanges: EdcExchange[] }>;
  /**
   * Sends a subject's changed records (and removals). Idempotent: the same records sent again leave the target as
   * it was (ODM TransactionType Upsert; REDCap overwriteBehavior normal on fixed record/event/instance keys; a
   * removal is sent only while `atTarget` shows something to remove). A record refused by the target is a result
   * with ok false and the target's reason; a failure of the exchange throws.
   */
  send(subjectKey: string, siteKey: string | undefined, records: EdcRecord[]): Promise<EdcSendOutcome>;
}
