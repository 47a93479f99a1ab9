/** Where a command's text output goes: a stream (stdout) or a file, written chunk by chunk. */
import type { CliWritable } from './io.js';

export interface TextSink {
  write(text: string): Promise<void>;
}

/**
 * Writes to a stream and honours back-pressure, so a large output (`convert` of a 2-million-point
 * track) is not queued whole in memory when the reader is slower than the writer.
 */
export function streamSink(stream: CliWritable): TextSink {
  return {
    write(text: string): Promise<void> {
      if (stream.write(text)) return Promise.resolve();
      return new Promise((resolve) => {
        stream.once('drain', resolve);
      });
    },
  };
}

/** Writes every chunk of `chunks` to `sink`, in order. */
export async function writeChunks(sink: TextSink, chunks: Iterable<string>): Promise<void> {
  for (const chunk of chunks) await sink.write(chunk);
}
