/**
 * OTLP/HTTP JSON trace export (opentelemetry-proto, ExportTraceServiceRequest in its JSON encoding): what the web
 * app's exporter sends and what we forward. Only the fields of the protocol are kept (unknown keys are dropped
 * before forwarding); the lists are bounded, and attribute values nest at most three levels, so that validating
 * a hostile body can neither run long nor recurse deeply. The byte cap is the route's body limit.
 */
import { z } from 'zod';

const hex = (len: number) => z.string().regex(new RegExp(`^[0-9a-fA-F]{${len}}$`), `validation.hex${len}`);
/** int64 in OTLP JSON: a decimal string (the spec's encoding) or a JSON number */
const uint64 = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()], 'validation.unixNano');
const int64 = z.union([z.string().regex(/^-?\d{1,20}$/), z.number().int()]);
const short = z.string().max(1024);

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  bytesValue?: string;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: { key: string; value?: AnyValue }[] };
};

/** AnyValue with nested arrays/key-value lists only `depth` levels down (no recursion into the unknown). */
function anyValue(depth: number): z.ZodType<AnyValue> {
  const scalar = {
    stringValue: z.string().max(8192).optional(),
    boolValue: z.boolean().optional(),
    intValue: int64.optional(),
    doubleValue: z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])]).optional(),
    bytesValue: z.string().max(8192).optional(),
  };
  if (depth === 0) return z.object(scalar);
  const inner = anyValue(depth - 1);
  return z.object({
    ...scalar,
    arrayValue: z.object({ values: z.array(inner).max(128).optional() }).optional(),
    kvlistValue: z.object({ values: z.array(z.object({ key: short, value: inner.optional() })).max(128).optional() }).optional(),
  });
}

const keyValue = z.object({ key: short, value: anyValue(2).optional() });
const attributes = z.array(keyValue).max(128).optional();
const dropped = z.number().int().nonnegative().optional();

export const otlpSpan = z.object({
  traceId: hex(32),
  spanId: hex(16),
  traceState: short.optional(),
  parentSpanId: z.union([hex(16), z.literal('')]).optional(),
  flags: z.number().int().nonnegative().optional(),
  name: z.string().min(1).max(1024),
  kind: z.number().int().min(0).max(5).optional(),
  startTimeUnixNano: uint64,
  endTimeUnixNano: uint64,
  attributes,
  droppedAttributesCount: dropped,
  events: z
    .array(z.object({ timeUnixNano: uint64, name: short, attributes, droppedAttributesCount: dropped }))
    .max(128)
    .optional(),
  droppedEventsCount: dropped,
  links: z
    .array(
      z.object({
        traceId: hex(32),
        spanId: hex(16),
        traceState: short.optional(),
        attributes,
        droppedAttributesCount: dropped,
        flags: z.number().int().nonnegative().optional(),
      }),
    )
    .max(128)
    .optional(),
  droppedLinksCount: dropped,
  status: z.object({ message: short.optional(), code: z.number().int().min(0).max(2).optional() }).optional(),
});

export const otlpTraces = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes, droppedAttributesCount: dropped }).optional(),
        scopeSpans: z
          .array(
            z.object({
              scope: z
                .object({ name: short.optional(), version: short.optional(), attributes, droppedAttributesCount: dropped })
                .optional(),
              spans: z.array(otlpSpan).max(1000),
              schemaUrl: short.optional(),
            }),
          )
          .max(100),
        schemaUrl: short.optional(),
      }),
    )
    .min(1)
    .max(100),
});
export type OtlpTraces = z.infer<typeof otlpTraces>;

/** Number of spans in an export. */
export function countSpans(body: OtlpTraces): number {
  let n = 0;
  for (const rs of body.resourceSpans) for (const s of rs.scopeSpans) n += s.spans.length;
  return n;
}
