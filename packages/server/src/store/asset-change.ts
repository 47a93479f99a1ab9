/**
 * A change to a route or trip, as the change log and the webhook outbox both take it: in a file of its
 * own so that neither of them imports the other (issue 35).
 */
import type { AssetType, ChangeAction } from '../db/schema.js';

export interface NewAssetChange {
  itemType: AssetType;
  itemId: number;
  /** the owner of the asset */
  itemUserId: number;
  /** who acted */
  userId: number;
  action: ChangeAction;
  /** Unix milliseconds */
  at: number;
}
