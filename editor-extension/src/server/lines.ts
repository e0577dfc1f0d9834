/** Whole lines out of a stream's chunks (a chunk may end mid-line). Pure. */

export class LineSplitter {
  private partial = "";

  /** The lines `chunk` completes, without their line breaks; blank lines dropped. */
  push(chunk: string): string[] {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    return parts.filter((line) => line.trim() !== "");
  }

  /** What is left once the stream ended: a last line without a line break. */
  end(): string | undefined {
    const rest = this.partial;
    this.partial = "";
    return rest.trim() !== "" ? rest : undefined;
  }
}
