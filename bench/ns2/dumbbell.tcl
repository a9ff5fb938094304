# Dumbbell benchmark scenario for ns-2.35 (reference side of bench/run.py).
#
#   s_i --access-- r1 ==bottleneck== r2 --access-- d_i      i = 0..N-1
#
# N Agent/TCP/Newreno -> Agent/TCPSink (one ACK per segment) bulk FTP flows;
# flow i starts at i*spacing. Prints one JSON object on stdout.
#
# usage: ns dumbbell.tcl flows duration spacing bneck_buffer access_buffer window_pkts
#
# Queue-limit semantics: ns-2's DropTail drops an arriving packet when
# (packets waiting + 1) >= limit_, and the packet being serialised has already
# left the queue for the link. A limit_ of L therefore holds L-1 waiting
# packets. ns-3's DropTailQueue MaxSize=100p holds 100 waiting packets, so a
# buffer of B waiting packets is limit_ B+1 here (see bench/README.md).

if {$argc != 6} {
    puts stderr "usage: ns dumbbell.tcl flows duration spacing bneck_buffer access_buffer window_pkts"
    exit 2
}
set nflows       [lindex $argv 0]
set duration     [lindex $argv 1]
set spacing      [lindex $argv 2]
set bneck_buffer [lindex $argv 3]
set acc_buffer   [lindex $argv 4]
set window_pkts  [lindex $argv 5]

# --- TCP parameters (names are ns-2.35 bound variables, see ns-default.tcl) ---
# 1460-byte payload; tcpip_base_hdr_size_ (40) is added, so IP packets are 1500 B.
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ $window_pkts
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 1
# ns-2 defaults to a 10 ms RTT clock; 1 ms matches ns-3's ClockGranularity.
Agent/TCP set tcpTick_ 0.001
Agent/TCP set timestamps_ false
Agent/TCP set maxcwnd_ 0

set ns [new Simulator]

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 20ms DropTail
$ns queue-limit $r1 $r2 [expr {$bneck_buffer + 1}]
$ns queue-limit $r2 $r1 [expr {$acc_buffer + 1}]

# Queue monitors count drops without writing a trace file: one on the
# bottleneck, and one on every other forward-direction queue so that
# "only the bottleneck drops" is checked, not assumed.
set devnull [open /dev/null w]
set bmon [$ns monitor-queue $r1 $r2 $devnull]
set others {}

for {set i 0} {$i < $nflows} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    foreach {a b} [list $s($i) $r1 $r1 $s($i) $r2 $d($i) $d($i) $r2] {
        $ns queue-limit $a $b [expr {$acc_buffer + 1}]
    }
    lappend others [$ns monitor-queue $s($i) $r1 $devnull]
    lappend others [$ns monitor-queue $r2 $d($i) $devnull]

    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr {$i * $spacing}]
    $ns at $start($i) "$ftp($i) start"
}

proc finish {} {
    global ns nflows duration start sink tcp bmon others t0 window_pkts
    set engine [expr {([clock clicks -microseconds] - $t0) / 1e6}]
    set other_drops 0
    foreach m $others { incr other_drops [$m set pdrops_] }
    set starts {}
    set rx {}
    set gp {}
    set bad 0
    set tos {}
    set rtx {}
    for {set i 0} {$i < $nflows} {incr i} {
        # TCPSink's bytes_ adds hdr_cmn size (1500 B) per in-order data
        # packet, plus 40 B for the simulated SYN (syn_ true): strip both.
        set b [$sink($i) set bytes_]
        set segs [expr {$b / 1500}]
        set rem [expr {$b % 1500}]
        if {$rem != 0 && $rem != 40} { set bad 1 }
        set payload [expr {$segs * 1460}]
        lappend starts [format %.6f $start($i)]
        # nrexmit_ counts retransmission timeouts, nrexmitpack_ all
        # retransmitted packets (timeouts and fast retransmits).
        lappend tos [$tcp($i) set nrexmit_]
        lappend rtx [$tcp($i) set nrexmitpack_]
        lappend rx $payload
        lappend gp [format %.3f [expr {$payload * 8.0 / ($duration - $start($i))}]]
    }
    puts "{\"simulator\": \"ns-2.35\", \"flows\": $nflows, \"duration_s\": $duration,"
    puts " \"engine_s\": [format %.6f $engine], \"window_pkts\": $window_pkts,"
    puts " \"bottleneck_drops\": [$bmon set pdrops_], \"other_drops\": $other_drops,"
    puts " \"bottleneck_departures\": [$bmon set pdepartures_], \"sink_bytes_unexpected\": $bad,"
    puts " \"flow_start_s\": \[[join $starts {, }]\],"
    puts " \"timeouts\": \[[join $tos {, }]\],"
    puts " \"retransmits\": \[[join $rtx {, }]\],"
    puts " \"rx_bytes\": \[[join $rx {, }]\],"
    puts " \"goodput_bps\": \[[join $gp {, }]\]}"
    exit 0
}

$ns at $duration "finish"
set t0 [clock clicks -microseconds]
$ns run
