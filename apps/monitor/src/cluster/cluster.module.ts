import { Module } from '@nestjs/common';
import { ClusterSession } from '../core/database/cluster-session';
import { ClusterLocks } from './cluster-locks.service';
import { ClusterRepository } from './cluster.repository';
import { MembershipService } from './membership.service';

/** Membership of the instances sharing one PostgreSQL, and the cluster-wide locks. */
@Module({
  providers: [ClusterSession, ClusterRepository, MembershipService, ClusterLocks],
  exports: [MembershipService, ClusterLocks, ClusterSession],
})
export class ClusterModule {}
