/**
 * @tmcw/togeojson's declarations import the `geojson` types (from @types/geojson, which it does not
 * depend on). The benchmark only needs the result to be a typed value, so these few shapes stand in
 * for the package rather than adding a dependency for types the benchmark never reads.
 */
declare module 'geojson' {
  export interface Geometry {
    type: string;
  }

  export interface Feature<G extends Geometry | null = Geometry> {
    type: 'Feature';
    geometry: G;
    properties: Record<string, unknown> | null;
  }

  export interface FeatureCollection<G extends Geometry | null = Geometry> {
    type: 'FeatureCollection';
    features: Feature<G>[];
  }
}
