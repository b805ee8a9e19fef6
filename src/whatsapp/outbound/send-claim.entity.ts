import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A run of an outbound WhatsApp message's job asking the provider: the claim that keeps two runs
 * of one send (its job pushed again by the outbox while the first run is still asking, as after
 * Redis came back empty) from both sending. A row of its own, not a column of the message, so that
 * the claim and the read of the message's status are one statement (SendClaimsRepository.claim):
 * as a column, the claim cost a send its status read and a second update of the message row.
 */
@Entity('send_claims')
/** Retention finds the old claims by age. */
@Index('ix_send_claims_claimed_at', ['claimedAt'])
export class SendClaim {
  /** The outbound message's conversation event. */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_send_claims' }) eventId: string;
  @Column('uuid') workspaceId: string;
  /**
   * The run holding the claim: its job attempt's name (SendDelivery.askInTurn), so that a run
   * gives up only its own claim, and the run of a stalled job taken over finds the one it left.
   */
  @Column({ type: 'varchar', length: 200 }) holder: string;
  @Column({ type: 'timestamptz', default: () => 'now()' }) claimedAt: Date;
}
