/** Shapes of the generated FIT profile (profile.generated.ts). */

export interface FitComponent {
  readonly fieldNum: number;
  readonly bits: number;
  readonly scale: number;
  readonly offset: number;
  /** the target field accumulates (rolls over at `bits`), e.g. record.distance from compressed_speed_distance */
  readonly accumulate: boolean;
}

export interface FitSubField {
  readonly name: string;
  readonly type: string;
  readonly baseType: string;
  readonly scale: number;
  readonly offset: number;
  readonly components: readonly FitComponent[];
  /** the sub-field applies when a reference field of the same message has one of these values */
  readonly when: ReadonlyArray<{ readonly fieldNum: number; readonly value: number }>;
}

export interface FitProfileField {
  readonly num: number;
  readonly name: string;
  readonly type: string;
  readonly baseType: string;
  readonly array: boolean;
  readonly scale: number;
  readonly offset: number;
  readonly units: string;
  readonly accumulated: boolean;
  readonly components: readonly FitComponent[];
  readonly subFields: readonly FitSubField[];
}

export interface FitProfileMessage {
  readonly num: number;
  readonly name: string;
  readonly fields: Readonly<Record<number, FitProfileField>>;
}
